package facts

import (
	"strings"
	"testing"
)

func TestCmdlineText(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	s := cmdlineText([]string{long})
	if len(s) > maxCmdlineBytes || !strings.HasPrefix(long, s) || len(s) != 256 {
		t.Errorf("truncated to %d bytes: %q", len(s), s)
	}
	s = cmdlineText([]string{"a" + strings.Repeat("é", 200)})
	if len(s) != 255 || !strings.HasPrefix("a"+long, s) {
		t.Errorf("truncated to %d bytes", len(s))
	}
	if got := cmdlineText(cmdlineArgs([]byte("/bin/x\x00-a\x00b\x00\x00"))); got != "/bin/x -a b" {
		t.Errorf("got %q", got)
	}
}
