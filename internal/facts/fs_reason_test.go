package facts

import (
	"strings"
	"testing"
)

// TestPermissionReasonAsRoot: root is never told to run as root.
func TestPermissionReasonAsRoot(t *testing.T) {
	if r := permissionReason(true); strings.Contains(r, "run as root") || !strings.Contains(r, "even to root") {
		t.Errorf("as root: %q", r)
	}
	if r := permissionReason(false); !strings.Contains(r, "run as root to read it") {
		t.Errorf("not root: %q", r)
	}
	if r := deniedReason("permission denied for 3 process(es)", "them", false); r != "permission denied for 3 process(es) (run as root to read them)" {
		t.Errorf("not root, several: %q", r)
	}
}
