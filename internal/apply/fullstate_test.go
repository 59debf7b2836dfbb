package apply

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dbhost/dbhost/internal/confine"
)

// TestFullStateFilesystemSummary (issue 24, item 11): the state
// filesystem fills up (ENOSPC from then on) at each journal write of an
// apply in turn. The apply fails, and its result still counts and lists
// what it did: every item has its final status (none left "to change"),
// the counts add up to the items, an item counted applied holds its new
// value in the tree, an item not written is failed "not written". (The
// summary said "no changes in the plan" after changes were applied: the
// counts were empty.)
func TestFullStateFilesystemSummary(t *testing.T) {
	src := fixture(t, "laptop-2s")
	sawApplied := false
	for at := 1; ; at++ {
		root := t.TempDir()
		copyTree(t, src, root)
		o := opts(root)
		o.AcceptRisk = true
		writes := 0
		// Only the journal's writes count: the state filesystem fills up
		// at the at-th one and stays full.
		full := false
		seamFull := func(op, p string) error {
			if op != "write" || !strings.Contains(p, filepath.Join("var/lib/dbhost", "journal")) {
				return nil
			}
			writes++
			if writes >= at {
				full = true
			}
			if full {
				return syscall.ENOSPC
			}
			return nil
		}
		prev := confine.Fault
		confine.Fault = func(op, p string) error {
			if strings.HasPrefix(p, root+"/") {
				return seamFull(op, p)
			}
			if prev == nil {
				return nil
			}
			return prev(op, p)
		}
		res, err := Apply(everyKind(), o)
		confine.Fault = prev
		if err == nil {
			if at < 3 {
				t.Fatalf("apply succeeded with the state filesystem full from journal write %d", at)
			}
			break
		}
		if res == nil {
			t.Fatalf("at %d: no result: %v", at, err)
		}
		total := 0
		for _, n := range res.Counts {
			total += n
		}
		if total != len(res.Items) {
			t.Errorf("at %d: counts %v add up to %d, %d items (%v)", at, res.Counts, total, len(res.Items), err)
		}
		for _, it := range res.Items {
			switch it.Status {
			case StatusChange:
				t.Errorf("at %d: %s left %q after the apply failed", at, it.Setting, it.Status)
			case StatusApplied:
				sawApplied = true
				if it.Kind == "sysctl" || it.Kind == "sysfs" {
					if v, rerr := o.Sys.Read(it.Path); rerr != nil || !Same(it.Path, v, it.New) {
						t.Errorf("at %d: %s counted applied, the tree holds %q", at, it.Setting, v)
					}
				}
			}
		}
	}
	if !sawApplied {
		t.Errorf("no run failed after applying something: the fault never came mid-run")
	}
}
