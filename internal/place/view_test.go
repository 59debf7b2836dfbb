package place

// textView is the placement's text (report.PlaceText) for the tests of
// this package: report draws what place computes and imports place, so an
// internal test cannot import report; place_test's init (view_ext_test.go)
// sets it.
var textView func(*Result) []byte

// SetTextView is how view_ext_test.go sets textView.
func SetTextView(f func(*Result) []byte) { textView = f }
