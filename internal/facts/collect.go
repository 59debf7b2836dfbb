package facts

import (
	"fmt"
	"os"
	"os/user"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/testhooks"
)

// A reader fills one part of the snapshot from one kernel source (or a few
// files of the same kind). Readers of the same stage run concurrently and must
// write only their own part of the snapshot (Absent is shared, and locked).
type reader struct {
	name  string
	stage int
	fn    func(*Collector)
	facts []string // the snapshot facts it fills, named as rules ask for them
}

// Stages: host and topology first (others may look at CPUs and nodes), then
// every independent source, then sosreport fallbacks and cross-references.
const (
	StageBase    = 0
	StageSources = 1
	StageSos     = 2 // sosreport fallbacks (sos_commands/*) for facts the file copies lacked
	StageDerived = 3
)

var readers []reader

// register adds a reader; called from init() in each source's file, so that
// adding a source touches no other file. facts are the parts of the snapshot
// it fills, by the names rules ask AbsentReason about ("cpu_power",
// "config.tuned.profile"): a panic in the reader leaves each of them absent.
func register(name string, stage int, fn func(*Collector), facts ...string) {
	if len(facts) == 0 {
		panic("facts: reader " + name + " names no fact it fills")
	}
	readers = append(readers, reader{name, stage, fn, facts})
}

// Options tune a collection.
type Options struct {
	Version string    // dbhost version recorded in the snapshot
	Now     time.Time // collection time (zero: time.Now())
	Kind    string    // live | root | sosreport (default from Root)
	Path    string    // source path recorded in the snapshot
	// Libvirt asks for the KVM guests defined on the host (--libvirt,
	// libvirt_read.go); Virsh runs virsh on the live host (nil: read the
	// definition files only).
	Libvirt bool
	Virsh   Virsh
}

// Collect reads every fact under root into a new snapshot.
func Collect(root Root, opt Options) *snapshot.Snapshot {
	s := &snapshot.Snapshot{
		SchemaVersion: snapshot.SchemaVersion,
		CollectedAt:   opt.Now,
		Sysctl:        map[string]string{},
		Absent:        []snapshot.Absence{},
		Processes:     []snapshot.Process{},
	}
	if s.CollectedAt.IsZero() {
		s.CollectedAt = time.Now().UTC().Truncate(time.Millisecond)
	}
	s.Source = snapshot.Source{Kind: opt.Kind, Path: opt.Path, Collector: opt.Version}
	if s.Source.Kind == "" {
		switch {
		case root.Live:
			s.Source.Kind = "live"
		case root.Sos:
			s.Source.Kind = "sosreport"
		default:
			s.Source.Kind = "root"
		}
	}
	if root.Live {
		s.Source.Root = os.Geteuid() == 0
		if u, err := user.Current(); err == nil {
			s.Source.User = u.Username
		} else {
			s.Source.User = strconv.Itoa(os.Geteuid())
		}
	}
	if !root.plain() && root.dir == nil {
		// One descriptor of the tree for every reader (see Root.Open). A
		// tree that cannot be opened still yields a snapshot: each read
		// fails and records the reason.
		if opened, err := root.Open(); err == nil {
			root = opened
			defer opened.Close()
		}
	}
	c := &Collector{Root: root, Snap: s}
	if opt.Libvirt {
		c.libvirt = &libvirtAsk{virsh: opt.Virsh}
	}
	byStage := map[int][]reader{}
	stages := []int{}
	for _, r := range readers {
		if _, ok := byStage[r.stage]; !ok {
			stages = append(stages, r.stage)
		}
		byStage[r.stage] = append(byStage[r.stage], r)
	}
	sort.Ints(stages)
	for _, st := range stages {
		var wg sync.WaitGroup
		for _, r := range byStage[st] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.recoverWorker(r.name, nil, r.facts...)
				testPanic("reader:" + r.name)
				r.fn(c)
			}()
		}
		wg.Wait()
	}
	normalize(s)
	return s
}

// normalize makes output deterministic: Absent sorted and de-duplicated,
// each bare "not present" explained by its kernel era (eras.go).
func normalize(s *snapshot.Snapshot) {
	explainEras(s)
	sort.SliceStable(s.Absent, func(i, j int) bool {
		if s.Absent[i].Fact != s.Absent[j].Fact {
			return s.Absent[i].Fact < s.Absent[j].Fact
		}
		return s.Absent[i].Path < s.Absent[j].Path
	})
	out := s.Absent[:0]
	for i, a := range s.Absent {
		if i > 0 && a == s.Absent[i-1] {
			continue
		}
		out = append(out, a)
	}
	s.Absent = out
}

// cpusPerWorker is how many CPUs make another reading worker worthwhile.
var cpusPerWorker = 64

// cpuWorkers is the number of workers that read n CPUs' files: per-CPU
// sysfs reads are system calls, which run in parallel on several cores.
// At most GOMAXPROCS and 4.
func cpuWorkers(n int) int {
	w := min(runtime.GOMAXPROCS(0), 4, (n+cpusPerWorker-1)/cpusPerWorker)
	return max(w, 1)
}

// chunk returns the bounds of share i of n items split into w shares.
func chunk(n, w, i int) (lo, hi int) { return n * i / w, n * (i + 1) / w }

// Resolve drops Absent entries for fact (used when a sosreport fallback
// supplied the fact after all).
func (c *Collector) Resolve(fact string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.Snap.Absent[:0]
	for _, a := range c.Snap.Absent {
		if a.Fact != fact {
			out = append(out, a)
		}
	}
	c.Snap.Absent = out
}

// IsAbsent reports whether fact was recorded as absent.
func (c *Collector) IsAbsent(fact string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range c.Snap.Absent {
		if a.Fact == fact {
			return true
		}
	}
	return false
}

// recoverWorker, deferred at the top of every reader goroutine, turns a
// panic (a bug, or a file shape the reader did not expect) into an absence
// of each fact the goroutine fills, named as rules ask for it ("cpu_power",
// "storage.devices"; a rule asking about "cpu_power.cpuidle" is answered by
// the absence of "cpu_power", see rules.AbsentReason), instead of ending the
// process: the other readers' facts are kept, as the rules engine keeps the
// other rules. A worker that shares its facts with others passes panicked,
// set true on a panic, so that its caller drops the partial result (a CPU
// list with holes is worse than none); a reader's own goroutine passes nil.
func (c *Collector) recoverWorker(name string, panicked *bool, facts ...string) {
	if p := recover(); p != nil {
		if panicked != nil {
			c.mu.Lock()
			*panicked = true
			c.mu.Unlock()
		}
		for _, f := range facts {
			c.AbsentReason(f, "", fmt.Sprintf("internal error in the %s reader: %v (please report it at %s with the host's tree or sosreport)", name, p, crash.ReportURL))
		}
	}
}

// testPanic panics where DBHOST_TEST_PANIC names the place (tests of the
// recovery, through a -tags testhooks binary; see docs/apply.md's test hooks).
func testPanic(where string) {
	if testhooks.Enabled && testhooks.Getenv(testhooks.Panic) == where {
		panic("test panic at " + where + " (DBHOST_TEST_PANIC)")
	}
}
