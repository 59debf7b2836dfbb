package input

import "testing"

// Capped keeps exactly Max bytes, counts the rest, and is Over only past Max.
func TestCapped(t *testing.T) {
	w := &Capped{Max: 5}
	w.Write([]byte("abc"))
	w.WriteString("de")
	if w.Buf.String() != "abcde" || w.Over() {
		t.Fatalf("at Max: %q, over %v", w.Buf.String(), w.Over())
	}
	if n, err := w.Write([]byte("fgh")); n != 3 || err != nil {
		t.Fatalf("a write past Max: %d, %v (a command must never see a failed write)", n, err)
	}
	if w.Buf.String() != "abcde" || !w.Over() || w.N != 8 {
		t.Fatalf("past Max: %q, over %v, n %d", w.Buf.String(), w.Over(), w.N)
	}
}
