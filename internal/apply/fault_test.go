package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/kernelsim"
)

// faultErrnos are the errors a real host gives a write, an fsync or a
// rename: a full disk, a failing one, a read-only or SELinux-refused file,
// a busy device, a process gone, a value refused.
var faultErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EIO, syscall.EACCES, syscall.EBUSY, syscall.ESRCH, syscall.EINVAL, syscall.EROFS}

// faults counts the fallible steps of a run — the state lock's, the
// journal's and the managed files' filesystem steps (confine.Fault) and the
// kernel files' reads and writes, cgroup directories, cgroup files and
// process moves (faultSys) — and fails the at-th with errno; sticky, every
// later step of the same operation fails too (a disk that stays full).
type faults struct {
	at     int // 0: never
	errno  syscall.Errno
	sticky bool
	n      int
	hitOp  string
	hits   []string // "op path" of each injected failure
	exited []string // PIDs an injected ESRCH made exit (faultSys.MovePID)
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

// seams routes confine.Fault's steps to the run whose tree holds the
// file, so that runs in parallel each see only their own steps.
var seams struct {
	sync.Mutex
	once  sync.Once
	roots map[string]*seam
}

// seam is one run's filesystem faults (swapped by the run as it goes).
type seam struct{ f *faults }

// faultSeam makes f the fault of every confine step on a file under root
// until the test ends; the run sets its f to another faults as it goes.
func faultSeam(t *testing.T, root string, f *faults) *seam {
	t.Helper()
	seams.once.Do(func() {
		seams.roots = map[string]*seam{}
		confine.Fault = func(op, p string) error {
			seams.Lock()
			var s *seam
			for root, x := range seams.roots {
				if strings.HasPrefix(p, root+"/") {
					s = x
					break
				}
			}
			seams.Unlock()
			if s == nil {
				return nil
			}
			return s.f.step(op, p)
		}
	})
	s := &seam{f: f}
	seams.Lock()
	seams.roots[filepath.Clean(root)] = s
	seams.Unlock()
	t.Cleanup(func() {
		seams.Lock()
		delete(seams.roots, filepath.Clean(root))
		seams.Unlock()
	})
	return s
}

// faultSys injects f's faults into a Sys's reads and writes and, through
// CgroupFS, into cgroup mkdir, rmdir, file writes and process moves.
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
		if err == syscall.ESRCH {
			// ESRCH is a process that exited while its /proc files were
			// read (the tree loses it); elsewhere a failing read is EIO.
			if pid, ok := procPID(p); ok {
				s.exit(pid)
			} else {
				err = syscall.EIO
			}
		}
		return "", &fileError{"read", p, err}
	}
	return s.Sys.Read(p)
}

// procPID is the PID of a /proc/PID/... path.
func procPID(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/proc/")
	pid, _, _ := strings.Cut(rest, "/")
	return pid, ok && pid != "" && strings.Trim(pid, "0123456789") == ""
}

// exit plays the exit of process pid in the tree (exitProcess) and
// remembers it for the expected state.
func (s faultSys) exit(pid string) {
	exitProcess(s.Sys.(TreeSys).Root.Dir, pid)
	if !slices.Contains(s.f.exited, pid) {
		s.f.exited = append(s.f.exited, pid)
	}
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

func (s faultSys) cg() CgroupFS { return s.Sys.(CgroupFS) }

func (s faultSys) Mkdir(dir string) error {
	if err := s.f.step("mkdir", dir); err != nil {
		return &fileError{"mkdir", dir, err}
	}
	return s.cg().Mkdir(dir)
}

func (s faultSys) Rmdir(dir string) error {
	if err := s.f.step("rmdir", dir); err != nil {
		return &fileError{"rmdir", dir, err}
	}
	return s.cg().Rmdir(dir)
}

func (s faultSys) WriteCgroup(p, v string) error {
	if err := s.f.step("write", p); err != nil {
		return &fileError{"write", p, err}
	}
	return s.cg().WriteCgroup(p, v)
}

// MovePID: an injected ESRCH is a process that exited right before its
// move, as the kernel says it: the tree loses it (exit).
func (s faultSys) MovePID(mount, dir, pid string) error {
	if err := s.f.step("move", dir+"/cgroup.procs"); err != nil {
		if err == syscall.ESRCH {
			s.exit(pid)
		}
		return &fileError{"write", dir + "/cgroup.procs", err}
	}
	return s.cg().MovePID(mount, dir, pid)
}

// exitProcess plays a process's exit in a tree: its /proc/PID goes, and it
// leaves every cgroup.procs and tasks list.
func exitProcess(root, pid string) {
	os.RemoveAll(filepath.Join(root, "proc", pid))
	for _, mount := range []string{"sys/fs/cgroup", "cgroup"} {
		filepath.WalkDir(filepath.Join(root, mount), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (d.Name() == "cgroup.procs" || d.Name() == "tasks") {
				if b, err := os.ReadFile(p); err == nil && slices.Contains(strings.Fields(string(b)), pid) {
					os.WriteFile(p, []byte(withoutPID(string(b), pid)), 0o644)
				}
			}
			return nil
		})
	}
}

// afterExits is a tree state as it would be had the PIDs exited.
func afterExits(m map[string]string, pids []string) map[string]string {
	if len(pids) == 0 {
		return m
	}
	out := map[string]string{}
	for k, v := range m {
		gone := false
		for _, pid := range pids {
			if strings.HasPrefix(k, "proc/"+pid+"/") || k == "dir proc/"+pid {
				gone = true
			}
			if b := path.Base(k); (b == "cgroup.procs" || b == "tasks") && slices.Contains(strings.Fields(v), pid) {
				v = withoutPID(v, pid)
			}
		}
		if !gone {
			out[k] = v
		}
	}
	return out
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

// faultCase is a host and the changes an apply makes on it.
type faultCase struct {
	name    string
	tmpl    func(t *testing.T) string // a template tree, copied for every run
	copy    func(t *testing.T, tmpl, dst string)
	changes []change.Change
	state   func(t testing.TB, root, skip string) map[string]string
}

func faultCases() []faultCase {
	v2 := "/sys/fs/cgroup/dbhost_pg"
	v1 := "/sys/fs/cgroup/cpuset/dbhost_ORCL"
	// The cgroup trees keep their processes (moves need /proc/PID/cgroup).
	withProcs := func(t *testing.T, tmpl, dst string) {
		copyFiltered(t, tmpl, dst, func(rel string) bool {
			rel = filepath.ToSlash(rel)
			return rel == "sys/devices/system/cpu" || rel == "proc/irq"
		})
	}
	return []faultCase{{
		name:    "settings",
		tmpl:    func(t *testing.T) string { return fixture(t, "laptop-2s") },
		copy:    func(t *testing.T, tmpl, dst string) { copyTree(t, tmpl, dst) },
		changes: everyKind(),
		state:   treeBytes,
	}, {
		// place --apply on cgroup v2: the controller enabled, a group made,
		// its cpuset written, two running processes moved in.
		name: "cgroup-v2",
		tmpl: func(t *testing.T) string {
			root := cgFixture(t, "cgroup-v2")
			os.WriteFile(filepath.Join(root, "sys/fs/cgroup/cgroup.subtree_control"), []byte("cpu io memory pids\n"), 0o644)
			return root
		},
		copy: withProcs,
		changes: []change.Change{
			cg(change.CgroupController, "/sys/fs/cgroup/cgroup.subtree_control", "+cpuset"),
			cg(change.CgroupDir, v2, "present"),
			cg(change.CgroupFile, v2+"/cpuset.cpus", "2-3"),
			cg(change.CgroupFile, v2+"/cpuset.mems", "0"),
			cg(change.CgroupProcs, v2+"/cgroup.procs", "812"),
			cg(change.CgroupProcs, v2+"/cgroup.procs", "1501"),
			{Kind: change.Sysfs, Key: "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", Value: "16", Rule: "place-binding"},
		},
		state: cgState,
	}, {
		// cgroup v1: memory_migrate, a move, an existing group's cpus.
		name: "cgroup-v1",
		tmpl: func(t *testing.T) string { return cgFixture(t, "cgroup-v1") },
		copy: withProcs,
		changes: []change.Change{
			cg(change.CgroupDir, v1, "present"),
			cg(change.CgroupFile, v1+"/cpuset.cpus", "8-9"),
			cg(change.CgroupFile, v1+"/cpuset.mems", "1"),
			cg(change.CgroupFile, v1+"/cpuset.memory_migrate", "1"),
			cg(change.CgroupProcs, v1+"/cgroup.procs", "2201"),
			cg(change.CgroupFile, "/sys/fs/cgroup/cpuset/oracle/cpuset.cpus", "4-5"),
		},
		state: cgState,
	}}
}

// stepsOf counts the fallible steps of a clean apply and of its rollback.
func stepsOf(t *testing.T, c faultCase, tmpl string) (applySteps, rollbackSteps int) {
	root := t.TempDir()
	c.copy(t, tmpl, root)
	f := &faults{}
	faultSeam(t, root, f)
	o := faultOpts(root, f)
	if res, err := Apply(c.changes, o); err != nil || res.Count(StatusFailed) > 0 {
		t.Fatalf("clean apply: %v %+v", err, res)
	}
	applySteps, f.n = f.n, 0
	if res, err := Rollback("", o); err != nil || res.Failed() > 0 {
		t.Fatalf("clean rollback: %v %+v", err, res)
	}
	return applySteps, f.n
}

// TestFaultsNeverAFalseSuccess is the crash-safety property on the failure
// paths: a fault (ENOSPC, EIO, EACCES, EBUSY, ESRCH, EINVAL, EROFS; once or
// from then on) at a step of an apply — the state lock's mkdir, create or
// flock, a journal create, write, fsync or head update, the limits file's
// create, write, fsync, rename or directory fsync, a kernel file's read or
// write, a cgroup's mkdir, cpuset write or process move (ESRCH there: the
// process exited) — or of a rollback (the journal reopened: open,
// truncate, head; rmdir, the PIDs moved back), then:
//   - an apply that reports success left the host at the plan's values
//     (a dry run finds nothing to change);
//   - a rollback after a failed apply brings the tree back byte for byte
//     (nothing was written that the journal does not hold);
//   - a rollback that meets a fault either restores every value or fails
//     and names each value it did not restore (or, failing before its
//     first restore, changed nothing); then a rollback without the fault
//     finishes the job.
//
// Every step of the apply and of the rollback gets a fault, for each host
// (kernel settings; place --apply on cgroup v2 and v1), the errno and
// stickiness varying with the step; -short takes every third step.
func TestFaultsNeverAFalseSuccess(t *testing.T) {
	for _, c := range faultCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			faultProperty(t, c)
		})
	}
}

func faultProperty(t *testing.T, c faultCase) {
	tmpl := c.tmpl(t)
	nApply, nRollback := stepsOf(t, c, tmpl)
	if nApply < 20 || nRollback < 10 {
		t.Fatalf("only %d apply and %d rollback steps seen: the seam misses steps", nApply, nRollback)
	}
	every := 1
	if testing.Short() {
		every = 3
	}
	var applyFails, rollbackFails, rollbackOK atomic.Int32
	// stepWorkers runs at a time (subtests run from a pool of goroutines,
	// beyond go test -parallel; the hosts' runs in parallel too).
	var pool sync.WaitGroup
	work := make(chan func())
	for range stepWorkers {
		pool.Go(func() {
			for run := range work {
				run()
			}
		})
	}
	runs := 0
	func() {
		defer func() { close(work); pool.Wait() }()
		for i := 1; i <= nApply+nRollback; i += every {
			runs++
			inApply := i <= nApply
			f := &faults{at: i, errno: faultErrnos[i%len(faultErrnos)], sticky: i%4 == 0}
			if !inApply {
				f.at = i - nApply
			}
			name := fmt.Sprintf("%s-step%d-%s-sticky=%v", map[bool]string{true: "apply", false: "rollback"}[inApply], f.at, f.errno, f.sticky)
			work <- func() {
				t.Run(name, func(t *testing.T) {
					root := t.TempDir()
					c.copy(t, tmpl, root)
					clean := &faults{}
					fs := faultSeam(t, root, f)
					o := faultOpts(root, f)
					before := c.state(t, root, o.StateDir)
					if inApply {
						res, err := Apply(c.changes, o)
						fs.f = clean
						o = faultOpts(root, clean)
						if err == nil && res.Count(StatusFailed) == 0 {
							dry := o
							dry.DryRun = true
							d, derr := Apply(c.changes, dry)
							if derr != nil || d.Count(StatusChange) > 0 {
								t.Fatalf("apply reported success after %v, but a dry run finds changes left (%v): %+v", f.hits, derr, d.Items)
							}
						} else {
							applyFails.Add(1)
						}
						want := afterExits(before, f.exited)
						rb, err := Rollback("", o)
						if errors.Is(err, ErrNoJournal) {
							if d := diffTrees(want, c.state(t, root, o.StateDir)); len(d) > 0 {
								t.Fatalf("apply failed (%v) before its journal, yet changed the tree: %v", f.hits, d)
							}
							return
						}
						if err != nil || rb.Failed() > 0 || rb.Stopped() {
							t.Fatalf("rollback after a failed apply (%v): %v %+v", f.hits, err, rb)
						}
						if d := diffTrees(want, c.state(t, root, o.StateDir)); len(d) > 0 {
							t.Fatalf("rollback after an apply that met %v reported success, but the tree differs: %v", f.hits, d)
						}
						return
					}
					// A fault in the rollback of a clean apply.
					fs.f = clean
					if _, err := Apply(c.changes, faultOpts(root, clean)); err != nil {
						t.Fatal(err)
					}
					applied := c.state(t, root, o.StateDir)
					fs.f = f
					rb, err := Rollback("", o)
					fs.f = clean
					after := c.state(t, root, o.StateDir)
					want := afterExits(before, f.exited)
					diff := changedPaths(want, after)
					switch {
					case err == nil && rb != nil && rb.Failed() == 0 && !rb.Stopped():
						rollbackOK.Add(1)
						if len(diff) > 0 {
							t.Fatalf("rollback reported success after %v, but these differ from before the apply: %v", f.hits, diff)
						}
					case rb == nil:
						// Refused before its first restore (the lock, the journals
						// unreadable): nothing may have changed.
						rollbackFails.Add(1)
						if d := diffTrees(afterExits(applied, f.exited), after); len(d) > 0 {
							t.Fatalf("rollback failed before restoring anything (%v, %v), yet changed the tree: %v", f.hits, err, d)
						}
					default:
						rollbackFails.Add(1)
						named := map[string]bool{}
						pids := map[string]bool{}
						for _, j := range rb.Journals {
							for _, r := range j.Restores {
								if r.Status == RestoreFailed {
									named[realPath(t, root, r.Path)] = true
									if pid, ok := strings.CutPrefix(r.Setting, "pid "); ok {
										pids[pid] = true
									}
								}
							}
						}
						for _, p := range diff {
							if !namedBy(p, named, pids) {
								t.Errorf("rollback failed (%v, %v) and left %s not restored without naming it (named: %v)", f.hits, err, p, keys(named))
							}
						}
					}
					// Once the fault is gone, rollback finishes the job.
					rb, err = Rollback("", faultOpts(root, clean))
					if err != nil || rb.Failed() > 0 || rb.Stopped() {
						t.Fatalf("second rollback without the fault: %v %+v", err, rb)
					}
					if d := diffTrees(want, c.state(t, root, o.StateDir)); len(d) > 0 {
						t.Fatalf("second rollback: the tree differs: %v", d)
					}
				})
			}
		}
	}()
	t.Logf("%d runs: %d apply steps, %d rollback steps, a fault at every %s; %d applies failed, %d rollbacks failed (naming what they left), %d rollbacks succeeded",
		runs, nApply, nRollback, map[bool]string{true: "step", false: "third step"}[every == 1], applyFails.Load(), rollbackFails.Load(), rollbackOK.Load())
	if applyFails.Load() == 0 || rollbackFails.Load() == 0 {
		t.Errorf("no injected fault made an apply (%d) or a rollback (%d) fail: the injection reaches nothing", applyFails.Load(), rollbackFails.Load())
	}
}

// namedBy reports whether a path a failed rollback left changed is one it
// named: the path (or "dir PATH") itself, a file in a named group, the
// effective list the kernel derives from a named cpuset list, or — when it
// named a process move (a cgroup.procs entry) — /proc/PID/cgroup files and
// the groups' process lists.
func namedBy(p string, named, pids map[string]bool) bool {
	p = strings.TrimPrefix(p, "dir ")
	moves := len(pids) > 0
	for n := range named {
		if p == n || strings.HasPrefix(p, n+"/") {
			return true
		}
		if b := path.Base(n); b == "cgroup.procs" || b == "tasks" {
			moves = true
		}
		for _, x := range []string{"cpus", "mems"} {
			if n == path.Dir(p)+"/cpuset."+x && (path.Base(p) == "cpuset.effective_"+x || path.Base(p) == "cpuset."+x+".effective") {
				return true
			}
		}
	}
	for pid := range pids {
		if p == "proc/"+pid || strings.HasPrefix(p, "proc/"+pid+"/") {
			return true
		}
	}
	b := path.Base(p)
	return moves && (b == "cgroup.procs" || b == "tasks" || (strings.HasPrefix(p, "proc/") && b == "cgroup"))
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
