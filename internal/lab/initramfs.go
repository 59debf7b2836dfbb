package lab

import (
	"compress/gzip"
	"fmt"
	"io"
	"sort"
	"strings"
)

// cpioFile is one entry of a newc ("070701") archive.
type cpioFile struct {
	Name  string // without leading "/"
	Mode  uint32 // type bits included (0o100755, 0o040755, 0o120777, 0o020600)
	Data  []byte // file contents, or the symlink target
	Major uint32 // device numbers for device nodes
	Minor uint32
}

const (
	modeDir  = 0o040000
	modeFile = 0o100000
	modeLink = 0o120000
	modeChar = 0o020000
)

// writeCpio writes entries as a newc archive (what the kernel unpacks into its
// initramfs) with a TRAILER!!!. Entries are written in name order so parents
// come before children and the output is deterministic (mtime 0, owner root).
func writeCpio(w io.Writer, files []cpioFile) error {
	files = append([]cpioFile(nil), files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	files = append(files, cpioFile{Name: "TRAILER!!!"})
	for i, f := range files {
		if f.Name == "" || strings.HasPrefix(f.Name, "/") || strings.Contains(f.Name, "\x00") {
			return fmt.Errorf("cpio: bad name %q", f.Name)
		}
		nlink := 1
		if f.Mode&0o170000 == modeDir {
			nlink = 2
		}
		ino := i + 1
		if f.Name == "TRAILER!!!" {
			ino, nlink = 0, 1
		}
		hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
			ino, f.Mode, 0, 0, nlink, 0, len(f.Data), 0, 0, f.Major, f.Minor, len(f.Name)+1, 0)
		if _, err := io.WriteString(w, hdr+f.Name+"\x00"+pad4(len(hdr)+len(f.Name)+1)); err != nil {
			return err
		}
		if _, err := w.Write(f.Data); err != nil {
			return err
		}
		if _, err := io.WriteString(w, pad4(len(f.Data))); err != nil {
			return err
		}
	}
	return nil
}

func pad4(n int) string { return strings.Repeat("\x00", (4-n%4)%4) }

// writeCpioGz writes a gzip-compressed newc archive. The kernel accepts
// several such archives concatenated, which is how a scenario's files are
// added to the cached base image without rebuilding it.
func writeCpioGz(w io.Writer, files []cpioFile) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if err := writeCpio(zw, files); err != nil {
		return err
	}
	return zw.Close()
}

// Results channel markers. The guest writes each section gzip+base64 encoded
// between a BEGIN and an END line on ttyS1, so kernel messages, CR/LF
// translation or a truncated stream can never pass for data.
const (
	markBegin = "@@DBHOST-LAB BEGIN "
	markEnd   = "@@DBHOST-LAB END "
	markDone  = "@@DBHOST-LAB DONE"
	// markInit is /init's first line: the kernel reached userspace. A boot
	// that never writes it is retried once (Result.BootRetries).
	markInit = "@@DBHOST-LAB INIT"
)

// initScript is the guest's /init (busybox ash). Sections: "collect" (the
// snapshot JSON), "collect-stderr", and, when /lab/guest.sh exists, "guest"
// (its output) and "out/<name>" for every file it left in $LAB_OUT (/lab/out);
// last "cov/<name>" for every coverage file a dbhost built with -cover left in
// $GOCOVERDIR (none otherwise).
const initScript = `#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t tmpfs tmpfs /tmp
export GOCOVERDIR=/tmp/cov
mkdir -p $GOCOVERDIR
out=/dev/ttyS1
stty -F $out raw -echo 2>/dev/null
echo "` + markInit + ` $(cut -d' ' -f1 /proc/uptime)" >$out
section() { # name file rc
	echo "` + markBegin + `$1"
	gzip -c "$2" | base64
	echo "` + markEnd + `$1 rc=$3"
}
{
	/bin/dbhost collect --format json >/tmp/collect.json 2>/tmp/collect.err
	section collect /tmp/collect.json $?
	section collect-stderr /tmp/collect.err 0
	if [ -f /lab/guest.sh ]; then
		mkdir -p /lab/out
		# The guest's progress on the console (its last output line when it
		# changes, every 10 s): a run cut by its timeout says where it was.
		(last=; while sleep 10; do l=$(tail -n 1 /tmp/guest.out 2>/dev/null | cut -c1-160); [ "$l" != "$last" ] && echo "lab: $(cut -d' ' -f1 /proc/uptime)s guest: $l" >/dev/console; last=$l; done) &
		progress=$!
		DBHOST=/bin/dbhost LAB_OUT=/lab/out sh /lab/guest.sh >/tmp/guest.out 2>&1
		rc=$?
		kill $progress 2>/dev/null
		section guest /tmp/guest.out $rc
		for f in /lab/out/*; do
			[ -f "$f" ] && section "out/${f##*/}" "$f" 0
		done
	fi
	for f in $GOCOVERDIR/*; do
		[ -f "$f" ] && section "cov/${f##*/}" "$f" 0
	done
	echo "` + markDone + `"
} >$out
sync
poweroff -f
`

// baseInitramfs lists the cached image's entries: busybox with its applets as
// symlinks, the static dbhost, /init and the mount points.
func baseInitramfs(busybox, dbhost []byte, applets []string) []cpioFile {
	files := []cpioFile{
		{Name: "bin", Mode: modeDir | 0o755},
		{Name: "dev", Mode: modeDir | 0o755},
		{Name: "dev/console", Mode: modeChar | 0o600, Major: 5, Minor: 1},
		{Name: "dev/null", Mode: modeChar | 0o666, Major: 1, Minor: 3},
		{Name: "proc", Mode: modeDir | 0o755},
		{Name: "sys", Mode: modeDir | 0o755},
		{Name: "tmp", Mode: modeDir | 0o1777},
		{Name: "lab", Mode: modeDir | 0o755},
		{Name: "etc", Mode: modeDir | 0o755},
		{Name: "etc/hostname", Mode: modeFile | 0o644, Data: []byte("dbhost-lab\n")},
		{Name: "bin/busybox", Mode: modeFile | 0o755, Data: busybox},
		{Name: "bin/dbhost", Mode: modeFile | 0o755, Data: dbhost},
		{Name: "init", Mode: modeFile | 0o755, Data: []byte(initScript)},
	}
	seen := map[string]bool{"busybox": true, "dbhost": true}
	for _, a := range applets {
		if a == "" || strings.ContainsAny(a, "/\x00") || seen[a] {
			continue
		}
		seen[a] = true
		files = append(files, cpioFile{Name: "bin/" + a, Mode: modeLink | 0o777, Data: []byte("busybox")})
	}
	if !seen["sh"] {
		files = append(files, cpioFile{Name: "bin/sh", Mode: modeLink | 0o777, Data: []byte("busybox")})
	}
	return files
}

// scenarioInitramfs is the small archive appended for one scenario.
func scenarioInitramfs(s *Scenario) []cpioFile {
	if s.Guest == "" {
		return nil
	}
	return []cpioFile{{Name: "lab/guest.sh", Mode: modeFile | 0o755, Data: []byte(s.Guest)}}
}
