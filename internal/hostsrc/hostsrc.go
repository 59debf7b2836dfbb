// Package hostsrc turns the user's choice of input (live host, --root tree,
// --sosreport archive or directory, --snapshot files) into snapshots.
package hostsrc

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/input"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Spec is what the user asked for; at most one of Root, Sosreport, Snapshot is set.
type Spec struct {
	Root      string
	Sosreport string
	Snapshot  string // a file or a glob of files
	Version   string
}

// InputError is bad input: exit code 2.
type InputError = snapshot.InputError

// Load returns one snapshot per host.
func Load(spec Spec) ([]*snapshot.Snapshot, error) {
	set := 0
	for _, v := range []string{spec.Root, spec.Sosreport, spec.Snapshot} {
		if v != "" {
			set++
		}
	}
	if set > 1 {
		return nil, &InputError{File: "flags", Msg: "use only one of --root, --sosreport, --snapshot"}
	}
	switch {
	case spec.Snapshot != "":
		return loadSnapshots(spec.Snapshot)
	case spec.Root != "":
		root, err := OpenTree(spec.Root)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		s := facts.Collect(root, facts.Options{Version: spec.Version, Path: spec.Root})
		return []*snapshot.Snapshot{s}, nil
	case spec.Sosreport != "":
		dir, cleanup, err := OpenSosreport(spec.Sosreport)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		taken, _ := SosTakenAt(dir) // zero when unknown: the time of reading
		s := facts.Collect(facts.Root{Dir: dir, Sos: true}, facts.Options{Version: spec.Version, Path: spec.Sosreport, Now: taken})
		return []*snapshot.Snapshot{s}, nil
	default:
		s := facts.Collect(facts.Root{Dir: "/", Live: true}, facts.Options{Version: spec.Version})
		return []*snapshot.Snapshot{s}, nil
	}
}

// OpenTree opens a --root directory: the one place that decides whether a
// path is a host tree dbhost may read or act on. It must be a directory
// holding at least one of proc/, sys/ and etc/ as directories of its own
// (not links out of it): an empty directory or a mistyped path is bad input,
// never an empty host that passes every check. The tree is returned open
// (confined reads, see facts.Root); the caller closes it.
func OpenTree(dir string) (facts.Root, error) {
	if strings.TrimSpace(dir) == "" {
		return facts.Root{}, &InputError{File: "--root", Msg: "empty path; an empty path never means this host"}
	}
	st, err := os.Stat(dir)
	if err != nil {
		return facts.Root{}, &InputError{File: dir, Msg: "--root expects a host tree directory: " + reasonOf(err)}
	}
	if !st.IsDir() {
		return facts.Root{}, &InputError{File: dir, Msg: "--root expects a host tree directory, this is a file (a snapshot is read with --snapshot, an archive with --sosreport)"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return facts.Root{}, &InputError{File: dir, Msg: "--root: " + err.Error()}
	}
	root, err := facts.Root{Dir: abs}.Open()
	if err != nil {
		return facts.Root{}, &InputError{File: dir, Msg: "--root: cannot open: " + reasonOf(err)}
	}
	if !hasHostDirs(root, "proc", "sys", "etc") {
		root.Close()
		return facts.Root{}, &InputError{File: dir, Msg: "not a host tree: none of proc/, sys/, etc/ is a directory in it (expected a captured tree such as DIR/proc, DIR/sys, DIR/etc)"}
	}
	return root, nil
}

// hasHostDirs reports whether one of the directories exists in the tree
// (resolved inside it: a link to the live /proc does not count).
func hasHostDirs(root facts.Root, dirs ...string) bool {
	for _, d := range dirs {
		if st, err := root.Stat("/" + d); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// snapshotsTotalBytes bounds one --snapshot glob (input.SnapshotsTotalBytes;
// a variable for tests).
var snapshotsTotalBytes = input.SnapshotsTotalBytes

func loadSnapshots(pattern string) ([]*snapshot.Snapshot, error) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, &InputError{File: pattern, Msg: "bad glob pattern: " + err.Error()}
	}
	if len(files) == 0 {
		if _, err := os.Stat(pattern); err != nil {
			return nil, &InputError{File: pattern, Msg: "no such snapshot file"}
		}
		files = []string{pattern}
	}
	sort.Strings(files)
	var out []*snapshot.Snapshot
	var total int64
	for _, f := range files {
		b, err := snapshot.Read(f)
		if err != nil {
			return nil, err
		}
		if total += int64(len(b)); total > snapshotsTotalBytes {
			return nil, &InputError{File: pattern, Msg: fmt.Sprintf("the %d snapshots matched so far hold more than %s, the limit for one --snapshot glob (see docs/limits.md); audit the fleet in parts", len(out)+1, confine.Bytes(snapshotsTotalBytes))}
		}
		s, err := snapshot.Parse(f, b)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, &InputError{File: pattern, Msg: fmt.Sprintf("no snapshot matched %q", pattern)}
	}
	return out, nil
}
