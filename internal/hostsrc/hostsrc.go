// Package hostsrc turns the user's choice of input (live host, --root tree,
// --sosreport archive or directory, --snapshot files) into snapshots.
package hostsrc

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/dbhost/dbhost/internal/facts"
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
		if err := checkDir(spec.Root, "--root"); err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(spec.Root)
		s := facts.Collect(facts.Root{Dir: abs}, facts.Options{Version: spec.Version, Path: spec.Root})
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

func checkDir(p, flag string) error {
	st, err := os.Stat(p)
	if err != nil {
		return &InputError{File: p, Msg: flag + " expects a directory: " + err.Error()}
	}
	if !st.IsDir() {
		return &InputError{File: p, Msg: flag + " expects a directory, this is a file"}
	}
	return nil
}

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
	for _, f := range files {
		s, err := snapshot.Load(f)
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
