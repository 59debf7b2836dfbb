package lazyre

import "testing"

func TestNew(t *testing.T) {
	re := New(`^a+b$`)
	if re() != re() {
		t.Error("compiled twice")
	}
	if !re().MatchString("aab") || re().MatchString("ba") {
		t.Error("wrong pattern")
	}
	defer func() {
		if recover() == nil {
			t.Error("an invalid pattern must panic on first use")
		}
	}()
	New(`(`)()
}
