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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/facts"
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
	// sosMaxEntries caps the files, directories and links created (a real
	// report has tens of thousands, mostly under sys/).
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
		return "", noop, fmt.Errorf("sosreport %s: cannot create a temporary directory: %w", p, err)
	}
	stop := removeOnSignal(tmp)
	cleanup = func() {
		stop()
		os.RemoveAll(tmp)
	}
	if err := extractSosArchive(p, tmp); err != nil {
		cleanup()
		return "", noop, err
	}
	if !looksLikeSos(tmp) {
		cleanup()
		return "", noop, &InputError{File: p, Msg: "archive holds no sosreport: no sos_commands/, proc/ or sys/ at its top or under one sosreport-*/ directory; " + sosExpected}
	}
	return tmp, cleanup, nil
}

// removeOnSignal removes dir when the process is interrupted (SIGINT,
// SIGTERM) before stop is called, then lets the signal end the process as it
// would have: a sosreport unpacked into /tmp can be hundreds of megabytes.
func removeOnSignal(dir string) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	crash.Go(func() {
		select {
		case sig := <-ch:
			os.RemoveAll(dir)
			signal.Stop(ch)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Signal(sig) // default action again, unless someone else listens
			}
		case <-done:
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
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
// tree, and caps the bytes written.
func extractSosArchive(p, dir string) error {
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
	dr = &unpackLimit{r: dr, left: sosMaxUnpacked}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("sosreport %s: %w", p, err)
	}
	defer root.Close()

	corrupt := func(err error) error {
		if errors.Is(err, errUnpackLimit) {
			return &InputError{File: p, Msg: fmt.Sprintf("the %s archive unpacks to more than %s, the limit for a sosreport (see docs/limits.md): refusing it (a decompression bomb?)", kind, confine.Bytes(sosMaxUnpacked))}
		}
		return &InputError{File: p, Msg: fmt.Sprintf("corrupt or truncated %s archive: %v; %s", kind, err, sosExpected)}
	}
	tr := tar.NewReader(dr)
	var (
		prefix        string // top sosreport-*/ directory being stripped
		prefixDecided bool
		total         int64
		links         []pendingLink
		entries, kept int
	)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return corrupt(err)
		}
		entries++
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
		if !wanted(parts, hdr.Typeflag) {
			continue
		}
		name := strings.Join(parts, "/")
		if kept++; kept > sosMaxEntries {
			return &InputError{File: p, Msg: fmt.Sprintf("more than %d entries in the parts dbhost reads: refusing to unpack it (is this a sosreport?)", sosMaxEntries)}
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				continue // a file of the same name came first; keep it
			}
		case tar.TypeReg, tar.TypeGNUSparse:
			if hdr.Size < 0 || hdr.Size > sosMaxFile {
				continue
			}
			if total+hdr.Size > sosMaxTotal {
				return &InputError{File: p, Msg: fmt.Sprintf("more than %d MiB in proc/, sys/, etc/, sos_commands/ and the other parts dbhost reads: refusing to unpack it (is this a sosreport?)", sosMaxTotal>>20)}
			}
			n, err := writeFile(root, name, tr, hdr.Size)
			total += n
			if err != nil {
				var ie *InputError
				if errors.As(err, &ie) {
					return err
				}
				var re *readError
				if errors.As(err, &re) {
					return corrupt(re.err)
				}
				return fmt.Errorf("sosreport %s: unpacking %s: %w", p, name, err)
			}
		case tar.TypeSymlink:
			t, ok := symlinkTarget(parts, hdr.Linkname)
			if ok {
				links = append(links, pendingLink{name: name, target: t})
			}
		case tar.TypeLink:
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
			links = append(links, pendingLink{name: name, target: strings.Join(tp, "/"), hard: true})
		default:
			// devices, fifos: nothing a reader needs
		}
	}
	if entries == 0 {
		return corrupt(errors.New("no entries"))
	}
	makeLinks(root, links)
	return nil
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

// unpackLimit passes at most left bytes, then fails with errUnpackLimit.
type unpackLimit struct {
	r    io.Reader
	left int64
}

func (u *unpackLimit) Read(p []byte) (int, error) {
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
// sysfs files such as 0200, which would make the copy unreadable).
func writeFile(root *os.Root, name string, r io.Reader, size int64) (int64, error) {
	if d := path.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return 0, nil // a file is where a directory should be: skip this entry
		}
	}
	if st, err := root.Lstat(name); err == nil && !st.Mode().IsRegular() {
		return 0, nil // a directory of that name exists: skip
	}
	out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(r, size))
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return n, err // a write error
		}
		return n, &readError{err}
	}
	if n != size {
		return n, &readError{io.ErrUnexpectedEOF}
	}
	return n, nil
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
func makeLinks(root *os.Root, links []pendingLink) {
	var made []string
	for _, l := range links {
		if d := path.Dir(l.name); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
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
				_ = root.Link(l.target, l.name)
			}
			continue
		}
		if err := root.Symlink(l.target, l.name); err == nil {
			made = append(made, l.name)
		}
	}
	for _, name := range made {
		if _, err := root.Stat(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			_ = root.Remove(name) // escapes, or a loop
		}
	}
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
