package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHardLinkedTreeCopy (issue 24, item 7): a tree copied with cp -al
// shares every file with its original; apply and rollback on the copy
// change the copy only, the original keeps every byte.
func TestHardLinkedTreeCopy(t *testing.T) {
	orig := copyFixture(t, "laptop-2s")
	linked := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-al", orig, linked).CombinedOutput(); err != nil {
		t.Skipf("cp -al: %v %s", err, out)
	}
	before := dirState(t, orig, "")
	r := dbhostExec(t, nil, "apply", "--root", linked, "--workload", "oltp", "--db", "oracle", "--accept-risk")
	if r.code != 0 || !strings.Contains(r.stdout, "applied") {
		t.Fatalf("apply on the copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if d := diffState(before, dirState(t, orig, "")); len(d) > 0 {
		t.Errorf("apply on a cp -al copy changed %d files of the original: %v", len(d), d)
	}
	if d := diffState(before, dirState(t, linked, filepath.Join(linked, "var/lib/dbhost"))); len(d) == 0 {
		t.Errorf("apply changed nothing in the copy")
	}
	if r := dbhostExec(t, nil, "rollback", "--root", linked); r.code != 0 {
		t.Fatalf("rollback on the copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if d := diffState(before, dirState(t, orig, "")); len(d) > 0 {
		t.Errorf("rollback on a cp -al copy changed the original: %v", d)
	}
	after := dirState(t, linked, filepath.Join(linked, "var/lib/dbhost"))
	for _, d := range []string{"var", "var/lib"} { // the state directory's parents
		if _, ok := before[d]; !ok {
			delete(after, d)
		}
	}
	if d := diffState(before, after); len(d) > 0 {
		t.Errorf("rollback did not bring the copy back: %v", d)
	}
}
