// Package hostsrc turns the user's choice of input (live host, --root tree,
// --sosreport archive or directory, --snapshot files) into snapshots.
package hostsrc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/facts/aix"
	"github.com/dbhost/dbhost/internal/input"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Spec is what the user asked for; at most one of Root, Sosreport,
// Snapshot, AIXBundle is set.
type Spec struct {
	Root      string
	Sosreport string
	Snapshot  string // a file or a glob of files
	AIXBundle string // an AIX bundle directory or .tar.gz (docs/aix.md)
	Version   string
	// Libvirt asks for the KVM guests defined on the host (--libvirt): virsh
	// on the live host, etc/libvirt/qemu/*.xml in a tree, the virsh
	// plugin's outputs in a sosreport; from a --snapshot, the guests it
	// holds (absent, with the reason, when it was collected without them).
	Libvirt bool
}

// InputError is bad input: exit code 2.
type InputError = snapshot.InputError

// One reads the one host spec names. A --snapshot glob matching several
// files is bad input naming cmd ("collect reads one host; 3 snapshots
// matched"), refused before any is read.
func One(spec Spec, cmd string) (*snapshot.Snapshot, error) {
	n, err := Count(spec)
	if err != nil {
		return nil, err
	}
	if n != 1 {
		return nil, &InputError{File: spec.Snapshot, Msg: fmt.Sprintf("%s reads one host; %d snapshots matched (several hosts are audited with dbhost audit --snapshot)", cmd, n)}
	}
	var out *snapshot.Snapshot
	err = Each(spec, func(s *snapshot.Snapshot, _ string) error {
		out = s
		return nil
	})
	return out, err
}

// Count is the number of hosts spec names, without reading any: 1, or the
// number of --snapshot files.
func Count(spec Spec) (int, error) {
	if err := checkOne(spec); err != nil {
		return 0, err
	}
	if spec.Snapshot == "" {
		return 1, nil
	}
	files, err := SnapshotFiles(spec.Snapshot)
	return len(files), err
}

func checkOne(spec Spec) error {
	set := 0
	for _, v := range []string{spec.Root, spec.Sosreport, spec.Snapshot, spec.AIXBundle} {
		if v != "" {
			set++
		}
	}
	if set > 1 {
		return &InputError{File: "flags", Msg: "use only one of --root, --sosreport, --snapshot, --aix-bundle"}
	}
	return nil
}

// Each reads the hosts spec names one at a time and calls fn with each
// snapshot and the file it was read from ("" for the live host, a --root
// tree or a sosreport, whose path is in the snapshot's source). Nothing is
// kept between calls: a fleet of any size is read in the memory of one
// snapshot. An error of fn stops the walk and is returned.
func Each(spec Spec, fn func(s *snapshot.Snapshot, file string) error) error {
	if err := checkOne(spec); err != nil {
		return err
	}
	switch {
	case spec.Snapshot != "":
		files, err := SnapshotFiles(spec.Snapshot)
		if err != nil {
			return err
		}
		for _, f := range files {
			s, err := snapshot.Load(f)
			if err != nil {
				return err
			}
			if spec.Libvirt && s.Libvirt == nil {
				s.Absent = append(s.Absent, snapshot.Absence{Fact: "libvirt", Path: f,
					Reason: "the snapshot was collected without --libvirt (dbhost collect --libvirt --format json on the hypervisor host)"})
			}
			if err := fn(s, f); err != nil {
				return err
			}
		}
		return nil
	case spec.Root != "":
		root, err := OpenTree(spec.Root)
		if err != nil {
			return err
		}
		defer root.Close()
		return fn(facts.Collect(root, facts.Options{Version: spec.Version, Path: spec.Root, Libvirt: spec.Libvirt}), "")
	case spec.Sosreport != "":
		dir, cleanup, err := OpenSosreport(spec.Sosreport)
		if err != nil {
			return err
		}
		defer cleanup()
		taken, _ := SosTakenAt(dir) // zero when unknown: the time of reading
		return fn(facts.Collect(facts.Root{Dir: dir, Sos: true}, facts.Options{Version: spec.Version, Path: spec.Sosreport, Now: taken, Libvirt: spec.Libvirt}), "")
	case spec.AIXBundle != "":
		if spec.Libvirt {
			return &InputError{File: "flags", Msg: "--libvirt reads the KVM guests of a Linux host; an AIX bundle has none"}
		}
		b, err := ReadAIXBundle(spec.AIXBundle)
		if err != nil {
			return err
		}
		return fn(aix.Collect(b.Files, aix.Options{Path: spec.AIXBundle, Version: spec.Version, Unread: b.Unread}), "")
	case aixLive():
		if spec.Libvirt {
			return &InputError{File: "flags", Msg: "--libvirt reads the KVM guests of a Linux host; this host runs AIX"}
		}
		s, _ := collectLiveAIX(spec.Version)
		return fn(s, "")
	default:
		opt := facts.Options{Version: spec.Version, Libvirt: spec.Libvirt}
		if spec.Libvirt {
			opt.Virsh = liveVirsh
		}
		return fn(facts.Collect(facts.Root{Dir: "/", Live: true}, opt), "")
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
	// "/", "//", "/.", a link to / or a bind mount of it: the same
	// directory as this host's root. A tree is read and written as a
	// capture (tree-mode writes are not the kernel's); this host is
	// worked on without --root.
	if top, err := os.Stat("/"); err == nil && os.SameFile(st, top) {
		return facts.Root{}, &InputError{File: dir, Msg: "--root is this host's own root directory (/): omit --root to work on this host (--root takes a captured tree)"}
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
	if !hasHostFile(root, hostFiles) {
		root.Close()
		return facts.Root{}, &InputError{File: dir, Msg: "not a host tree: none of the files a host has could be read in it (" + strings.Join(hostFiles, ", ") + ": its kernel version, CPUs or memory); an empty or half-copied capture is never audited as a healthy host"}
	}
	return root, nil
}

// hostFiles are the files of which a host tree holds at least one, read
// inside it and not empty: what says the kernel's version, the CPUs or the
// memory. Every kernel since 2.6 has them (a capture of any era keeps
// them); a tree holding only empty proc/, sys/ or etc/ directories, or
// only unrelated files, has none.
var hostFiles = []string{"proc/sys/kernel/osrelease", "proc/version", "proc/cpuinfo", "proc/stat", "proc/meminfo", "sys/devices/system/cpu/online", "sys/devices/system/cpu/possible"}

// sosHostFiles: the same for a sosreport, which may keep them as command
// outputs (uname -a, lscpu, free) rather than /proc copies.
var sosHostFiles = append(append([]string(nil), hostFiles...), "uname", "sos_commands/kernel/uname_-a", "sos_commands/processor/lscpu", "sos_commands/memory/free", "sos_commands/memory/free_-m")

// hasHostFile reports whether one of files is a regular file in the tree
// (resolved inside it) with something in it.
func hasHostFile(root facts.Root, files []string) bool {
	for _, f := range files {
		if b, err := root.ReadFile("/" + f); err == nil && len(bytes.TrimSpace(b)) > 0 {
			return true
		}
	}
	return false
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

// snapshotFiles bounds one --snapshot glob (input.SnapshotFiles; a
// variable for tests).
var snapshotFiles = input.SnapshotFiles

// SnapshotFiles expands a --snapshot file or glob into its files, sorted:
// a name that is no glob (or matches nothing as one) must exist itself.
func SnapshotFiles(pattern string) ([]string, error) {
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
	if len(files) > snapshotFiles {
		return nil, &InputError{File: pattern, Msg: fmt.Sprintf("%d files match, more than %d, the limit for one --snapshot glob (see docs/limits.md); audit the fleet in parts", len(files), snapshotFiles)}
	}
	sort.Strings(files)
	return files, nil
}
