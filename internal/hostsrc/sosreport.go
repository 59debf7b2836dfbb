package hostsrc

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/testhooks"
	"github.com/ulikunitz/xz"
)

// What a sosreport archive may look like to us.
const sosExpected = "expected a sosreport archive (.tar.xz, .tar.gz, .tgz, .tar.bz2 or .tar made by `sos report`) or its unpacked directory"

// Extraction limits. A sosreport can be gigabytes (var/log, journals); only
// the parts the fact readers use are written, and those are capped.
var (
	// sosMaxTotal caps the bytes written for one archive.
	sosMaxTotal int64 = 1 << 30
	// sosMaxFile: a single file larger than this is skipped (no fact reader
	// reads a file that large; sos_commands/logs/journalctl_* can be).
	sosMaxFile int64 = 64 << 20
	// sosMaxEntries caps the entries of an archive, every one counted as it
	// is listed (files, directories, links, the parts skipped): a real
	// report has tens of thousands, mostly under sys/.
	sosMaxEntries = 500000
	// sosMaxUnpacked caps the bytes decompressed from an archive, the parts
	// dbhost skips included (a decompression bomb is refused, not run for
	// hours): real reports unpack to well under 2 GiB.
	sosMaxUnpacked int64 = 8 << 30
	// sosMaxDict caps the LZMA2 dictionary an .xz archive may ask for: the
	// decoder allocates it whole (up to 4 GiB). xz's presets use at most
	// 64 MiB.
	sosMaxDict int64 = 256 << 20
)

const (
	// sosDirBytes is what one directory made counts toward sosMaxTotal: its
	// inode and first block (4 KiB on ext4, xfs and tmpfs). A million empty
	// directories are 4 GiB of a disk's or a tmpfs's space, not nothing.
	sosDirBytes = 4096
	// sosMaxName and sosMaxDepth: a member with a longer name (PATH_MAX: no
	// reader could open it) or more components is skipped (sysfs is about
	// 20 deep); a symlink with a longer target is skipped too.
	sosMaxName  = 4096
	sosMaxDepth = 128
)

// sosKeep lists the paths (below the report's top directory) that are
// extracted, with everything under them: the copies the fact readers read
// and the command outputs. Top-level files (hostname, uname, date,
// version.txt, and the lib -> usr/lib link of merged-/usr systems) are
// extracted too. Everything else (var/log, usr/share, sos_logs, sos_reports)
// is skipped.
var sosKeep = [][]string{
	{"proc"}, {"sys"}, {"etc"}, {"sos_commands"},
	{"run", "sysctl.d"}, {"usr", "lib", "sysctl.d"}, {"usr", "local", "lib", "sysctl.d"}, {"lib", "sysctl.d"},
	{"usr", "lib", "os-release"}, {"usr", "lib", "tuned"},
}

// OpenSosreport returns the directory of an unpacked sosreport (unpacking an
// archive into a temporary directory first) and a cleanup function, which is
// never nil and must be called when the directory is no longer needed.
//
// p is an archive (.tar.xz, .tar.gz/.tgz, .tar.bz2, .tar; recognised by its
// content, not its name), the top sosreport-*/ directory of an unpacked
// report, or a directory holding exactly one sosreport-*/ directory.
func OpenSosreport(p string) (dir string, cleanup func(), err error) {
	dir, cleanup, err = openSosreport(p)
	if err != nil {
		return dir, cleanup, err
	}
	root, err := facts.Root{Dir: dir}.Open()
	if err == nil {
		ok := hasHostFile(root, sosHostFiles)
		root.Close()
		if !ok {
			err = &InputError{File: p, Msg: "not a host's sosreport: none of the files a host has could be read in it (" + strings.Join(sosHostFiles, ", ") + ": its kernel version, CPUs or memory); an empty or half-copied report is never audited as a healthy host"}
		}
	}
	if err != nil {
		cleanup()
		return "", func() {}, err
	}
	return dir, cleanup, nil
}

func openSosreport(p string) (dir string, cleanup func(), err error) {
	noop := func() {}
	st, err := os.Stat(p)
	if err != nil {
		return "", noop, &InputError{File: p, Msg: "cannot open --sosreport: " + reasonOf(err) + "; " + sosExpected}
	}
	if st.IsDir() {
		d, err := sosDir(p)
		if err != nil {
			return "", noop, err
		}
		return d, noop, nil
	}
	if !st.Mode().IsRegular() {
		return "", noop, &InputError{File: p, Msg: "not a regular file; " + sosExpected}
	}
	tmp, err := os.MkdirTemp("", "dbhost-sosreport-*")
	if err != nil {
		return "", noop, tmpDirError(p, os.TempDir(), err)
	}
	sig := removeOnSignal(tmp)
	cleanup = func() {
		sig.stop()
		os.RemoveAll(tmp)
	}
	err = extractSosArchive(p, tmp, &sig.stopping)
	sig.unpackEnded()
	if err != nil {
		cleanup()
		return "", noop, err
	}
	if !looksLikeSos(tmp) {
		cleanup()
		return "", noop, &InputError{File: p, Msg: "archive holds no sosreport: no sos_commands/, proc/ or sys/ at its top or under one sosreport-*/ directory; " + sosExpected}
	}
	return tmp, cleanup, nil
}

// tmpDirError is a failure to make the copy of a sosreport in TMPDIR (dir):
// a full or read-only file system, a quota. It is the place, not the
// archive, that is wrong, but the operator fixes it as bad input: exit 2,
// the directory named, at the first write that fails.
func tmpDirError(p, dir string, err error) error {
	return &InputError{File: p, Msg: fmt.Sprintf("cannot unpack the sosreport into TMPDIR (%s): %s; free space there or point TMPDIR at another file system", dir, reasonOf(err))}
}

// errInterrupted ends an extraction stopped by SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

// sosSignals removes the temporary directory of an unpacked sosreport when
// the process is interrupted (SIGINT, SIGTERM) before stop is called: a
// sosreport unpacked into /tmp can be hundreds of megabytes. The first
// signal stops the extraction (stopping, checked at every entry and read),
// waits for it to end, removes the directory and exits 128+signal (130,
// 143); a second signal exits at once, whatever is left of the directory
// left behind.
type sosSignals struct {
	dir      string
	ch       chan os.Signal
	done     chan struct{} // closed by stop
	unpacked chan struct{} // closed when the extraction has ended
	stopping atomic.Bool

	mu      sync.Mutex
	stopped bool // stop was called: a signal now is not ours to handle

	stopOnce, unpackOnce sync.Once
}

func removeOnSignal(dir string) *sosSignals {
	s := &sosSignals{dir: dir, ch: make(chan os.Signal, 2), done: make(chan struct{}), unpacked: make(chan struct{})}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	crash.Go(s.run)
	return s
}

func (s *sosSignals) run() {
	var sig os.Signal
	select {
	case sig = <-s.ch:
	case <-s.done:
		return
	}
	s.mu.Lock()
	if s.stopped {
		// stop won the race: the directory is removed by cleanup; let the
		// signal end the process as it would have.
		s.mu.Unlock()
		<-s.done // signal.Stop done: the default action again
		raise(sig)
		return
	}
	s.stopping.Store(true)
	s.mu.Unlock()
	fmt.Fprintf(os.Stderr, "dbhost: %s: stopping, removing %s (a second signal exits at once)\n", sigName(sig), s.dir)
	crash.Go(func() {
		again := <-s.ch
		fmt.Fprintf(os.Stderr, "dbhost: %s again: exiting now; remove %s if it is still there\n", sigName(again), s.dir)
		os.Exit(sigExit(again))
	})
	if f := testhooks.Getenv(testhooks.SosCleanupPause); f != "" {
		os.WriteFile(f+".paused", nil, 0o644)
		for {
			if _, err := os.Stat(f); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	<-s.unpacked
	os.RemoveAll(s.dir)
	os.Exit(sigExit(sig))
}

// unpackEnded says the extraction has returned; after an interrupt it never
// returns (the signal's exit is under way).
func (s *sosSignals) unpackEnded() {
	s.unpackOnce.Do(func() { close(s.unpacked) })
	s.waitIfInterrupted()
}

// stop ends the watch; after an interrupt it never returns.
func (s *sosSignals) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.waitIfInterrupted()
	s.stopOnce.Do(func() {
		signal.Stop(s.ch)
		close(s.done)
	})
}

// waitIfInterrupted blocks the caller for good once a signal is being
// handled: the handler removes the directory and exits, and nothing else
// may report an error or go on meanwhile.
func (s *sosSignals) waitIfInterrupted() {
	if s.stopping.Load() {
		s.unpackOnce.Do(func() { close(s.unpacked) })
		select {}
	}
}

// sigExit is the exit code of a process ended by sig, as a shell reports it.
func sigExit(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

func sigName(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case os.Interrupt:
		return "SIGINT"
	}
	return sig.String()
}

// raise delivers sig to this process again, signal.Stop having restored its
// default action (unless another part of dbhost listens for it).
func raise(sig os.Signal) {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Signal(sig)
	}
}

// reasonOf strips the path an *fs.PathError repeats.
func reasonOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// looksLikeSos reports whether dir is the top of an unpacked sosreport.
func looksLikeSos(dir string) bool {
	root, err := facts.Root{Dir: dir}.Open()
	if err != nil {
		return false
	}
	defer root.Close()
	return hasHostDirs(root, "sos_commands", "proc", "sys")
}

// isSosTopName reports whether a directory name is a sosreport's top directory.
func isSosTopName(name string) bool {
	return strings.HasPrefix(name, "sosreport-") || strings.HasPrefix(name, "sosreport_")
}

// sosDir accepts an unpacked sosreport's top directory or its parent with
// exactly one sosreport-*/ directory inside.
func sosDir(p string) (string, error) {
	if looksLikeSos(p) {
		return p, nil
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return "", &InputError{File: p, Msg: "cannot read --sosreport directory: " + reasonOf(err)}
	}
	var tops []string
	for _, e := range ents {
		if e.IsDir() && isSosTopName(e.Name()) {
			tops = append(tops, e.Name())
		}
	}
	sort.Strings(tops)
	switch len(tops) {
	case 1:
		d := filepath.Join(p, tops[0])
		if looksLikeSos(d) {
			return d, nil
		}
		return "", &InputError{File: d, Msg: "not an unpacked sosreport: no sos_commands/, proc/ or sys/ inside"}
	case 0:
		return "", &InputError{File: p, Msg: "not an unpacked sosreport: expected sos_commands/, proc/ or sys/ here, or exactly one sosreport-*/ directory (for a captured tree use --root)"}
	default:
		return "", &InputError{File: p, Msg: fmt.Sprintf("holds %d sosreport directories (%s); pass one of them", len(tops), strings.Join(tops, ", "))}
	}
}

// decompressor sniffs the compression of an archive from its first bytes.
func decompressor(br *bufio.Reader) (io.Reader, string, error) {
	head, _ := br.Peek(262)
	switch {
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		r, err := xz.NewReader(br)
		return r, "xz", err
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		r, err := gzip.NewReader(br)
		return r, "gzip", err
	case bytes.HasPrefix(head, []byte("BZh")):
		return bzip2.NewReader(br), "bzip2", nil
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return nil, "zstd", errors.New("zstd-compressed archives are not supported; unpack it (tar --zstd -xf) and pass the directory")
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return br, "tar", nil
	case bytes.HasPrefix(head, []byte("-----BEGIN PGP")), len(head) > 0 && (head[0] == 0x85 || head[0] == 0x8c || head[0] == 0xc3):
		// sos report --encrypt-key / --encrypt-pass writes *.tar.xz.gpg
		return nil, "gpg", errors.New("looks GPG-encrypted (sos report --encrypt); decrypt it first (gpg -d FILE > FILE.tar.xz)")
	}
	return nil, "", errors.New("unknown format (not xz, gzip, bzip2 or tar)")
}

// pendingLink is a symlink or hard link created after all regular files, so
// that no file is ever written through a link.
type pendingLink struct {
	name, target string // slash paths relative to the tree; target as stored for symlinks
	hard         bool
}

// extractSosArchive unpacks the parts of a sosreport archive the fact readers
// use into dir, stripping the top sosreport-*/ directory. It refuses entries
// whose names escape the tree, keeps symlinks only when they stay inside the
// tree, and caps the entries listed and the bytes written (directories
// counted). It ends with errInterrupted as soon as stopping is set.
func extractSosArchive(p, dir string, stopping *atomic.Bool) error {
	f, err := os.Open(p)
	if err != nil {
		return &InputError{File: p, Msg: "cannot open --sosreport: " + reasonOf(err)}
	}
	defer f.Close()
	if err := checkXZ(f, p); err != nil {
		return err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	dr, kind, err := decompressor(br)
	if err != nil {
		return &InputError{File: p, Msg: "not a readable archive: " + err.Error() + "; " + sosExpected}
	}
	if c, ok := dr.(io.Closer); ok {
		defer c.Close()
	}
	dr = &unpackLimit{r: dr, left: sosMaxUnpacked, stopping: stopping}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("sosreport %s: %w", p, err)
	}
	defer root.Close()

	tmpDir := filepath.Dir(dir)
	corrupt := func(err error) error {
		if errors.Is(err, errInterrupted) {
			return errInterrupted
		}
		if errors.Is(err, errUnpackLimit) {
			return &InputError{File: p, Msg: fmt.Sprintf("the %s archive unpacks to more than %s, the limit for a sosreport (see docs/limits.md): refusing it (a decompression bomb?)", kind, confine.Bytes(sosMaxUnpacked))}
		}
		return &InputError{File: p, Msg: fmt.Sprintf("corrupt or truncated %s archive: %v; %s", kind, err, sosExpected)}
	}
	tooMuch := func() error {
		return &InputError{File: p, Msg: fmt.Sprintf("more than %s in proc/, sys/, etc/, sos_commands/ and the other parts dbhost reads (files, links, and %d bytes per directory: see docs/limits.md): refusing to unpack it (is this a sosreport?)", confine.Bytes(sosMaxTotal), sosDirBytes)}
	}
	tr := tar.NewReader(dr)
	dirs := sosDirs{ids: map[dirKey]int32{}}
	var (
		prefix        string // top sosreport-*/ directory being stripped
		prefixDecided bool
		total         int64 // bytes of the copy: files, links, directories
		links         []pendingLink
		entries       int
	)
	// charge counts the directories that holding parts would make; false
	// when they would pass sosMaxTotal.
	charge := func(parts []string) bool {
		total += int64(dirs.missing(parts)) * sosDirBytes
		return total <= sosMaxTotal
	}
	for {
		if stopping != nil && stopping.Load() {
			return errInterrupted
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return corrupt(err)
		}
		if entries++; entries > sosMaxEntries {
			return &InputError{File: p, Msg: fmt.Sprintf("more than %s entries, the limit for a sosreport (see docs/limits.md; a real one has tens of thousands): refusing it", group(sosMaxEntries))}
		}
		if len(hdr.Name) > sosMaxName {
			continue
		}
		parts, err := entryParts(hdr.Name)
		if err != nil {
			return &InputError{File: p, Msg: fmt.Sprintf("refusing archive entry %q: %v", trunc(hdr.Name, 80), err)}
		}
		if len(parts) == 0 {
			continue
		}
		if !prefixDecided {
			prefixDecided = true
			if isSosTopName(parts[0]) && (len(parts) > 1 || hdr.Typeflag == tar.TypeDir) {
				prefix = parts[0]
			}
		}
		if prefix != "" {
			if parts[0] != prefix {
				continue // not under the report's top directory
			}
			parts = parts[1:]
			if len(parts) == 0 {
				continue
			}
		}
		if !wanted(parts, hdr.Typeflag) || len(parts) > sosMaxDepth {
			continue
		}
		name := strings.Join(parts, "/")
		switch hdr.Typeflag {
		case tar.TypeDir:
			if !charge(parts) {
				return tooMuch()
			}
			if _, err := dirs.make(root, parts); err != nil {
				return tmpDirError(p, tmpDir, err)
			} // !made: a file of the same name came first; keep it
		case tar.TypeReg, tar.TypeGNUSparse:
			if hdr.Size < 0 || hdr.Size > sosMaxFile {
				continue
			}
			if total += hdr.Size; !charge(parts[:len(parts)-1]) {
				return tooMuch()
			}
			if made, err := dirs.make(root, parts[:len(parts)-1]); err != nil {
				return tmpDirError(p, tmpDir, err)
			} else if !made {
				continue // a file is where a directory should be: skip this entry
			}
			if err := writeFile(root, name, tr, hdr.Size); err != nil {
				var re *readError
				if errors.As(err, &re) {
					return corrupt(re.err)
				}
				return tmpDirError(p, tmpDir, err)
			}
		case tar.TypeSymlink:
			if len(hdr.Linkname) > sosMaxName {
				continue
			}
			t, ok := symlinkTarget(parts, hdr.Linkname)
			if ok {
				// held until the end, then made: counted by their names
				if total += int64(len(name) + len(t)); total > sosMaxTotal {
					return tooMuch()
				}
				links = append(links, pendingLink{name: name, target: t})
			}
		case tar.TypeLink:
			if len(hdr.Linkname) > sosMaxName {
				continue
			}
			tp, err := entryParts(hdr.Linkname)
			if err != nil || len(tp) == 0 {
				continue
			}
			if prefix != "" {
				if tp[0] != prefix || len(tp) == 1 {
					continue
				}
				tp = tp[1:]
			}
			t := strings.Join(tp, "/")
			if total += int64(len(name) + len(t)); total > sosMaxTotal {
				return tooMuch()
			}
			links = append(links, pendingLink{name: name, target: t, hard: true})
		default:
			// devices, fifos: nothing a reader needs
		}
	}
	if entries == 0 {
		return corrupt(errors.New("no entries"))
	}
	for _, l := range links {
		if !charge(strings.Split(path.Dir(l.name), "/")) {
			return tooMuch()
		}
	}
	if err := makeLinks(root, &dirs, links, stopping); err != nil {
		if errors.Is(err, errInterrupted) {
			return err
		}
		return tmpDirError(p, tmpDir, err)
	}
	return nil
}

// dirKey names a directory of the copy: its parent's id (0: the top) and
// its name.
type dirKey struct {
	parent int32
	name   string
}

// sosDirs knows the directories made in the copy, so that each is made,
// and counted toward sosMaxTotal, once (a map by whole path would hold
// every path's prefixes: quadratic in a deep tree).
type sosDirs struct{ ids map[dirKey]int32 }

// missing returns how many of the directories parts leads through are not
// made yet.
func (d *sosDirs) missing(parts []string) int {
	id := int32(0)
	for i, c := range parts {
		if c == "." {
			continue
		}
		next, ok := d.ids[dirKey{id, c}]
		if !ok {
			return len(parts) - i
		}
		id = next
	}
	return 0
}

// make makes the directories of parts that are not made yet. made is false,
// with no error, when something else is in the way (a file of that name
// came first); err is a failure of the file system (no space, read-only).
func (d *sosDirs) make(root *os.Root, parts []string) (made bool, err error) {
	id := int32(0)
	for i, c := range parts {
		if c == "." {
			continue
		}
		k := dirKey{id, c}
		next, ok := d.ids[k]
		if !ok {
			if err := root.Mkdir(strings.Join(parts[:i+1], "/"), 0o755); err != nil {
				if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTDIR) {
					return false, nil
				}
				return false, err
			}
			next = int32(len(d.ids) + 1)
			k.name = strings.Clone(c)
			d.ids[k] = next
		}
		id = next
	}
	return true, nil
}

// group writes n with thousands separators (500,000).
func group(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// checkXZ scans an .xz archive's structure before it is decoded (scanXZ):
// a dictionary over sosMaxDict or more than sosMaxUnpacked bytes to unpack
// is refused without allocating or unpacking anything. f is left at its
// start. Other archives are left to the decoder and unpackLimit.
func checkXZ(f *os.File, p string) error {
	head := make([]byte, len(xzMagic))
	if n, _ := f.ReadAt(head, 0); n < len(head) || !bytes.Equal(head, xzMagic) {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return &InputError{File: p, Msg: "cannot read --sosreport: " + reasonOf(err)}
	}
	info, err := scanXZ(io.NewSectionReader(f, 0, st.Size()), xzLimits{dict: sosMaxDict, unpacked: sosMaxUnpacked})
	switch {
	case err != nil:
		return &InputError{File: p, Msg: fmt.Sprintf("corrupt or truncated xz archive: %v; %s", err, sosExpected)}
	case info.maxDict > sosMaxDict:
		return &InputError{File: p, Msg: fmt.Sprintf("the xz archive asks for a %s dictionary, more than the limit of %s (see docs/limits.md; xz's presets use at most 64 MiB): refusing it", confine.Bytes(info.maxDict), confine.Bytes(sosMaxDict))}
	case info.unpacked > sosMaxUnpacked:
		return &InputError{File: p, Msg: fmt.Sprintf("the xz archive unpacks to more than %s, the limit for a sosreport (see docs/limits.md): refusing it (a decompression bomb?)", confine.Bytes(sosMaxUnpacked))}
	}
	return nil
}

// errUnpackLimit ends the decompression of an archive larger than sosMaxUnpacked.
var errUnpackLimit = errors.New("unpack limit reached")

// unpackLimit passes at most left bytes, then fails with errUnpackLimit;
// once stopping is set it fails with errInterrupted.
type unpackLimit struct {
	r        io.Reader
	left     int64
	stopping *atomic.Bool
}

func (u *unpackLimit) Read(p []byte) (int, error) {
	if u.stopping != nil && u.stopping.Load() {
		return 0, errInterrupted
	}
	if u.left <= 0 {
		return 0, errUnpackLimit
	}
	if int64(len(p)) > u.left {
		p = p[:u.left]
	}
	n, err := u.r.Read(p)
	u.left -= int64(n)
	return n, err
}

// readError is a failure reading the archive (not writing the copy).
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }

// writeFile writes size bytes of r to name (mode 0644: sos keeps the modes of
// sysfs files such as 0200, which would make the copy unreadable); its
// directory is made. A read error is a *readError, anything else a failure
// to write the copy.
func writeFile(root *os.Root, name string, r io.Reader, size int64) error {
	if st, err := root.Lstat(name); err == nil && !st.Mode().IsRegular() {
		return nil // a directory of that name exists: skip
	}
	out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(r, size))
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return err // a write error
		}
		return &readError{err}
	}
	if n != size {
		return &readError{io.ErrUnexpectedEOF}
	}
	return nil
}

// entryParts splits an archive entry name into clean components. Absolute
// names and ".." components are refused.
func entryParts(name string) ([]string, error) {
	if strings.HasPrefix(name, "/") {
		return nil, errors.New("absolute name")
	}
	if strings.ContainsRune(name, 0) {
		return nil, errors.New("NUL in name")
	}
	var out []string
	for _, c := range strings.Split(name, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			return nil, errors.New(`".." in name (path traversal)`)
		}
		out = append(out, c)
	}
	return out, nil
}

// wanted says whether an entry (components below the report's top) is one
// the fact readers may use.
func wanted(parts []string, typ byte) bool {
	if len(parts) == 1 && typ != tar.TypeDir {
		return true // top-level files and symlinks: hostname, uname, date, ...
	}
	for _, k := range sosKeep {
		if len(parts) >= len(k) && slices.Equal(parts[:len(k)], k) {
			return true
		}
	}
	return false
}

// symlinkTarget validates a symlink at parts (components below the top) with
// the stored target. It returns the target to create, relative to the link's
// directory, and false when the link would leave the tree. Absolute targets
// name host paths and are made relative to the tree's root. Only leading ".."
// components are allowed, so that the lexical check is also the real one.
func symlinkTarget(parts []string, target string) (string, bool) {
	if target == "" || strings.ContainsRune(target, 0) {
		return "", false
	}
	linkDir := parts[:len(parts)-1]
	var tparts []string
	abs := strings.HasPrefix(target, "/")
	up := 0
	for _, c := range strings.Split(target, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			if abs || len(tparts) > 0 {
				return "", false
			}
			up++
			continue
		}
		tparts = append(tparts, c)
	}
	if abs {
		// "/sys/devices/x" from "sys/block/sda": climb to the tree root.
		up = len(linkDir)
	} else if up > len(linkDir) {
		return "", false
	}
	if up == len(linkDir) && len(tparts) == 0 {
		// a link to the tree root itself: allowed, but useless and loop-prone
		return "", false
	}
	rel := strings.Repeat("../", up) + strings.Join(tparts, "/")
	rel = strings.TrimSuffix(rel, "/")
	if rel == "" {
		rel = "."
	}
	return rel, true
}

// makeLinks creates the links collected during extraction, then removes any
// symlink that the OS would resolve outside the tree (belt and braces: the
// targets were already checked lexically and only real directories hold links).
// Its error is a failure of the file system (no space) or errInterrupted.
func makeLinks(root *os.Root, dirs *sosDirs, links []pendingLink, stopping *atomic.Bool) error {
	var made []string
	for _, l := range links {
		if stopping != nil && stopping.Load() {
			return errInterrupted
		}
		if d := path.Dir(l.name); d != "." {
			if ok, err := dirs.make(root, strings.Split(d, "/")); err != nil {
				return err
			} else if !ok {
				continue
			}
			// The link's directory must be a real directory, not reached
			// through another link, for the lexical check to hold.
			if !realDir(root, d) {
				continue
			}
		}
		if st, err := root.Lstat(l.name); err == nil {
			if st.IsDir() {
				continue
			}
			_ = root.Remove(l.name) // a later entry replaces an earlier one
		}
		if l.hard {
			if st, err := root.Lstat(l.target); err == nil && st.Mode().IsRegular() {
				if err := root.Link(l.target, l.name); noSpace(err) {
					return err
				}
			}
			continue
		}
		err := root.Symlink(l.target, l.name)
		if err == nil {
			made = append(made, l.name)
		} else if noSpace(err) {
			return err
		}
	}
	for _, name := range made {
		if _, err := root.Stat(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			_ = root.Remove(name) // escapes, or a loop
		}
	}
	return nil
}

// noSpace reports a failure of the copy's file system (full, read-only,
// over quota), as opposed to a link refused by what is already there.
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EDQUOT)
}

// realDir reports whether no component of the slash path d is a symlink.
func realDir(root *os.Root, d string) bool {
	cur := ""
	for _, c := range strings.Split(d, "/") {
		cur = path.Join(cur, c)
		st, err := root.Lstat(cur)
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// SosTakenAt returns when an unpacked sosreport was taken, from its `date
// --utc` output (sos_commands/date/date_--utc), so that a snapshot's
// collected_at is the time of its facts rather than the time dbhost read
// them. ok is false when the report has no such output or it is not understood.
func SosTakenAt(dir string) (t time.Time, ok bool) {
	b, err := facts.Root{Dir: dir}.ReadFile("/sos_commands/date/date_--utc")
	if err != nil {
		return time.Time{}, false
	}
	return parseDateUTC(string(b))
}

// parseDateUTC parses date(1) output in the C locale with the UTC zone
// ("Sun Nov 22 06:13:59 UTC 2026"). Other zones are refused: their
// abbreviations are ambiguous.
func parseDateUTC(s string) (time.Time, bool) {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	t, err := time.Parse(time.UnixDate, strings.TrimSpace(line))
	if err != nil {
		return time.Time{}, false
	}
	if name, off := t.Zone(); name != "UTC" || off != 0 {
		return time.Time{}, false
	}
	return t.UTC(), true
}
