package apply

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/kernelsim"
)

// faultErrnos are the errors a real host gives a write, an fsync or a
// rename: a full disk, a failing one, a read-only or SELinux-refused file,
// a busy device, a process gone, a value refused.
var faultErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EIO, syscall.EACCES, syscall.EBUSY, syscall.ESRCH, syscall.EINVAL, syscall.EROFS}

// faults counts the fallible steps of a run — the journal's and the managed
// files' filesystem steps (confine.Fault) and the kernel files' reads and
// writes (faultSys) — and fails the at-th with errno; sticky, every later
// step of the same operation fails too (a disk that stays full).
type faults struct {
	at     int // 0: never
	errno  syscall.Errno
	sticky bool
	n      int
	hitOp  string
	hits   []string // "op path" of each injected failure
}

func (f *faults) step(op, p string) error {
	f.n++
	if f.at == 0 {
		return nil
	}
	if f.n == f.at || (f.sticky && f.hitOp == op && f.n > f.at) {
		f.hitOp = op
		f.hits = append(f.hits, op+" "+p)
		return f.errno
	}
	return nil
}

// install makes f the filesystem seam's fault until the test ends.
func (f *faults) install(t *testing.T) {
	t.Helper()
	confine.Fault = f.step
	t.Cleanup(func() { confine.Fault = nil })
}

// faultSys injects f's faults into a Sys's reads and writes.
type faultSys struct {
	Sys
	f *faults
}

func (s faultSys) Read(p string) (string, error) {
	if err := s.f.step("read", p); err != nil {
		if err == syscall.EINVAL {
			// On a read, EINVAL is an attribute that does not apply to
			// the device (wbt_lat_usec without writeback throttling),
			// which apply leaves alone: a failing read is EIO.
			err = syscall.EIO
		}
		return "", &fileError{"read", p, err}
	}
	return s.Sys.Read(p)
}

func (s faultSys) Write(p, v string) error {
	if err := s.f.step("write", p); err != nil {
		return &fileError{"write", p, err}
	}
	return s.Sys.Write(p, v)
}

func (s faultSys) List(dir string) ([]string, error) {
	if err := s.f.step("list", dir); err != nil {
		return nil, &fileError{"open", dir, err}
	}
	return s.Sys.List(dir)
}

type fileError struct {
	op, path string
	err      error
}

func (e *fileError) Error() string { return e.op + " " + e.path + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// faultOpts are opts(root) with f injected into the kernel files.
func faultOpts(root string, f *faults) Options {
	o := opts(root)
	o.Sys = faultSys{TreeSys{Root: facts.Root{Dir: root}, Kernel: kernelsim.New(facts.Root{Dir: root})}, f}
	return o
}

// stepsOf counts the fallible steps of a clean apply and of its rollback.
func stepsOf(t *testing.T, tmpl string) (applySteps, rollbackSteps int) {
	root := t.TempDir()
	copyTree(t, tmpl, root)
	f := &faults{}
	f.install(t)
	o := faultOpts(root, f)
	if _, err := Apply(everyKind(), o); err != nil {
		t.Fatal(err)
	}
	applySteps, f.n = f.n, 0
	if res, err := Rollback("", o); err != nil || res.Failed() > 0 {
		t.Fatalf("clean rollback: %v %+v", err, res)
	}
	return applySteps, f.n
}

// TestFaultsNeverAFalseSuccess is the crash-safety property on the failure
// paths: a fault (ENOSPC, EIO, EACCES, EBUSY, ESRCH, EINVAL, EROFS; once or
// from then on) at a random step of an apply — a journal write, fsync,
// head update, the limits file's create, write, fsync, rename or directory
// fsync, a kernel file's read or write — or of a rollback, then:
//   - an apply that reports success left the host at the plan's values
//     (a dry run finds nothing to change);
//   - a rollback after a failed apply brings the tree back byte for byte
//     (nothing was written that the journal does not hold);
//   - a rollback that meets a fault either restores every value or fails
//     and names each value it did not restore; then a rollback without the
//     fault finishes the job.
func TestFaultsNeverAFalseSuccess(t *testing.T) {
	tmpl := fixture(t, "laptop-2s")
	nApply, nRollback := stepsOf(t, tmpl)
	if nApply < 40 || nRollback < 20 {
		t.Fatalf("only %d apply and %d rollback steps seen: the seam misses steps", nApply, nRollback)
	}
	runs := 40
	if testing.Short() {
		runs = 16
	}
	seed := uint64(18)
	rng := rand.New(rand.NewPCG(seed, seed))
	var applyFails, rollbackFails, rollbackOK int
	for i := 0; i < runs; i++ {
		f := &faults{errno: faultErrnos[rng.IntN(len(faultErrnos))], sticky: rng.IntN(3) == 0}
		inApply := i%2 == 0
		if inApply {
			f.at = 1 + rng.IntN(nApply)
		} else {
			f.at = 1 + rng.IntN(nRollback)
		}
		name := fmt.Sprintf("%d-%s-step%d-%s-sticky=%v", i, map[bool]string{true: "apply", false: "rollback"}[inApply], f.at, f.errno, f.sticky)
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			copyTree(t, tmpl, root)
			clean := &faults{}
			f.install(t)
			o := faultOpts(root, f)
			before := treeBytes(t, root, o.StateDir)
			if inApply {
				res, err := Apply(everyKind(), o)
				confine.Fault = clean.step
				o = faultOpts(root, clean)
				if err == nil && res.Count(StatusFailed) == 0 {
					dry := o
					dry.DryRun = true
					d, derr := Apply(everyKind(), dry)
					if derr != nil || d.Count(StatusChange) > 0 {
						t.Fatalf("apply reported success after %v, but a dry run finds changes left (%v): %+v", f.hits, derr, d.Items)
					}
				} else {
					applyFails++
				}
				rb, err := Rollback("", o)
				if errors.Is(err, ErrNoJournal) {
					if d := diffTrees(before, treeBytes(t, root, o.StateDir)); len(d) > 0 {
						t.Fatalf("apply failed (%v) before its journal, yet changed the tree: %v", f.hits, d)
					}
					return
				}
				if err != nil || rb.Failed() > 0 || rb.Stopped() {
					t.Fatalf("rollback after a failed apply (%v): %v %+v", f.hits, err, rb)
				}
				if d := diffTrees(before, treeBytes(t, root, o.StateDir)); len(d) > 0 {
					t.Fatalf("rollback after an apply that met %v reported success, but the tree differs: %v", f.hits, d)
				}
				return
			}
			// A fault in the rollback of a clean apply.
			confine.Fault = clean.step
			if _, err := Apply(everyKind(), faultOpts(root, clean)); err != nil {
				t.Fatal(err)
			}
			confine.Fault = f.step
			rb, err := Rollback("", o)
			confine.Fault = clean.step
			after := treeBytes(t, root, o.StateDir)
			diff := changedPaths(before, after)
			ok := err == nil && rb != nil && rb.Failed() == 0 && !rb.Stopped()
			if ok {
				rollbackOK++
				if len(diff) > 0 {
					t.Fatalf("rollback reported success after %v, but these differ from before the apply: %v", f.hits, diff)
				}
			} else {
				rollbackFails++
				named := map[string]bool{}
				if rb != nil {
					for _, j := range rb.Journals {
						for _, r := range j.Restores {
							if r.Status == RestoreFailed {
								named[realPath(t, root, r.Path)] = true
							}
						}
					}
				}
				for _, p := range diff {
					if !named[p] {
						t.Errorf("rollback failed (%v, %v) and left %s not restored without naming it (named: %v)", f.hits, err, p, keys(named))
					}
				}
			}
			// Once the fault is gone, rollback finishes the job.
			rb, err = Rollback("", faultOpts(root, clean))
			if err != nil || rb.Failed() > 0 || rb.Stopped() {
				t.Fatalf("second rollback without the fault: %v %+v", err, rb)
			}
			if d := diffTrees(before, treeBytes(t, root, o.StateDir)); len(d) > 0 {
				t.Fatalf("second rollback: the tree differs: %v", d)
			}
		})
	}
	t.Logf("%d runs (seed %d): %d apply steps, %d rollback steps; %d applies failed, %d rollbacks failed (naming what they left), %d rollbacks succeeded", runs, seed, nApply, nRollback, applyFails, rollbackFails, rollbackOK)
	if applyFails == 0 || rollbackFails == 0 {
		t.Errorf("no injected fault made an apply (%d) or a rollback (%d) fail: the injection reaches nothing", applyFails, rollbackFails)
	}
}

// changedPaths are the files (relative, slash-separated) whose bytes differ
// between two treeBytes, or that one of them lacks.
func changedPaths(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			out = append(out, filepath.ToSlash(k))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, filepath.ToSlash(k))
		}
	}
	sort.Strings(out)
	return out
}

// realPath is a host path's file in the tree, relative, symlinks resolved
// (sys/block/nvme0n1 is a link into sys/devices/).
func realPath(t *testing.T, root, p string) string {
	real, err := filepath.EvalSymlinks(filepath.Join(root, p))
	if err != nil {
		return strings.TrimPrefix(p, "/")
	}
	top, _ := filepath.EvalSymlinks(root)
	rel, err := filepath.Rel(top, real)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
