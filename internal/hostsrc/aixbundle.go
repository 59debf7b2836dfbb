package hostsrc

import (
	"archive/tar"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/facts"
)

// What an AIX bundle may look like to us.
const aixExpected = "expected an AIX bundle (docs/aix.md): a directory holding meta and commands/, or a .tar.gz (or .tar) of one, made by scripts/dbhost-collect-aix.sh"

// AIX bundle limits (docs/limits.md). A bundle is command outputs: a large
// host's is a few MiB.
var (
	// aixMaxFile: a command output larger than this is not read (its fact
	// is absent with the limit as the reason).
	aixMaxFile int64 = 64 << 20
	// aixMaxTotal caps the bytes read from one bundle.
	aixMaxTotal int64 = 256 << 20
	// aixMaxEntries caps the entries of an archive or directory.
	aixMaxEntries = 100000
	// aixMaxUnpacked caps the bytes decompressed from an archive, the
	// entries dbhost skips included (a decompression bomb).
	aixMaxUnpacked int64 = 1 << 30
)

// AIXBundle is a bundle's files in memory (path below the bundle → bytes)
// and the files not read, with the reason.
type AIXBundle struct {
	Files  map[string][]byte
	Unread map[string]string
	user   string // who ran the commands (RunAIX)
}

// aixWanted says whether a path below the bundle is one dbhost reads: meta
// and commands/NAME.
func aixWanted(parts []string) bool {
	return len(parts) == 1 && parts[0] == "meta" || len(parts) == 2 && parts[0] == "commands"
}

// ReadAIXBundle reads an AIX bundle: a directory (holding meta or
// commands/, or exactly one directory that does), or a .tar.gz or .tar of
// one (recognised by content). Nothing is written to disk; only meta and
// commands/NAME are read, regular files only, within the limits above.
func ReadAIXBundle(p string) (*AIXBundle, error) {
	if strings.TrimSpace(p) == "" {
		return nil, &InputError{File: "--aix-bundle", Msg: "empty path; an empty path never means this host"}
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, &InputError{File: p, Msg: "cannot open --aix-bundle: " + reasonOf(err) + "; " + aixExpected}
	}
	if st.IsDir() {
		return readAIXDir(p)
	}
	if !st.Mode().IsRegular() {
		return nil, &InputError{File: p, Msg: "not a regular file; " + aixExpected}
	}
	return readAIXArchive(p)
}

// aixTop finds the bundle's directory in dir: dir itself, or its one
// subdirectory holding meta or commands/ (an archive unpacked with its top
// directory).
func aixTop(root facts.Root) (string, error) {
	isBundle := func(d string) bool {
		if st, err := root.Lstat(d + "/meta"); err == nil && st.Mode().IsRegular() {
			return true
		}
		st, err := root.Lstat(d + "/commands")
		return err == nil && st.IsDir()
	}
	if isBundle("") {
		return "", nil
	}
	ents, err := root.ReadDir("/")
	if err != nil {
		return "", err
	}
	var tops []string
	for _, e := range ents {
		if e.IsDir() && isBundle("/"+e.Name()) {
			tops = append(tops, e.Name())
		}
	}
	switch len(tops) {
	case 1:
		return "/" + tops[0], nil
	case 0:
		return "", errors.New("no meta file and no commands/ directory here or in one directory below")
	}
	return "", fmt.Errorf("holds %d bundles (%s); pass one of them", len(tops), strings.Join(tops, ", "))
}

func readAIXDir(dir string) (*AIXBundle, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &InputError{File: dir, Msg: "--aix-bundle: " + err.Error()}
	}
	root, err := facts.Root{Dir: abs}.Open()
	if err != nil {
		return nil, &InputError{File: dir, Msg: "--aix-bundle: cannot open: " + reasonOf(err)}
	}
	defer root.Close()
	top, err := aixTop(root)
	if err != nil {
		return nil, &InputError{File: dir, Msg: "not an AIX bundle: " + err.Error() + "; " + aixExpected}
	}
	b := &AIXBundle{Files: map[string][]byte{}, Unread: map[string]string{}}
	names := []string{"meta"}
	if cmds, err := root.ReadDirNames(top + "/commands"); err == nil {
		if len(cmds) > aixMaxEntries {
			return nil, &InputError{File: dir, Msg: fmt.Sprintf("commands/ holds %d files, more than %d, the limit for an AIX bundle (see docs/limits.md)", len(cmds), aixMaxEntries)}
		}
		sort.Strings(cmds)
		for _, c := range cmds {
			names = append(names, "commands/"+c)
		}
	}
	var total int64
	for _, n := range names {
		st, err := root.Lstat(top + "/" + n)
		if err != nil {
			if n != "meta" || !errors.Is(err, os.ErrNotExist) {
				b.Unread[n] = facts.Reason(err)
			}
			continue
		}
		if st.IsDir() {
			continue
		}
		if !st.Mode().IsRegular() {
			b.Unread[n] = "refused: not a regular file (a link, FIFO or device in a bundle is never read)"
			continue
		}
		if st.Size() > aixMaxFile {
			b.Unread[n] = fmt.Sprintf("refused: %s is larger than the limit of %s", n, confine.Bytes(aixMaxFile))
			continue
		}
		data, err := root.ReadFile(top + "/" + n)
		if err != nil {
			b.Unread[n] = facts.Reason(err)
			continue
		}
		if total += int64(len(data)); total > aixMaxTotal {
			return nil, &InputError{File: dir, Msg: fmt.Sprintf("the bundle holds more than %s of command output, the limit for an AIX bundle (see docs/limits.md)", confine.Bytes(aixMaxTotal))}
		}
		b.Files[n] = data
	}
	return b, nil
}

func readAIXArchive(p string) (*AIXBundle, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, &InputError{File: p, Msg: "cannot open --aix-bundle: " + reasonOf(err)}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	dr, kind, err := decompressor(br)
	if err != nil || kind != "gzip" && kind != "tar" {
		msg := "not a .tar.gz or .tar"
		if err != nil {
			msg = err.Error()
		}
		return nil, &InputError{File: p, Msg: "not a readable archive: " + msg + "; " + aixExpected}
	}
	if c, ok := dr.(io.Closer); ok {
		defer c.Close()
	}
	dr = &unpackLimit{r: dr, left: aixMaxUnpacked}
	b := &AIXBundle{Files: map[string][]byte{}, Unread: map[string]string{}}
	tr := tar.NewReader(dr)
	var prefix string
	decided := false
	var total int64
	entries := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, errUnpackLimit) {
				return nil, &InputError{File: p, Msg: fmt.Sprintf("the %s archive unpacks to more than %s, the limit for an AIX bundle (see docs/limits.md): refusing it (a decompression bomb?)", kind, confine.Bytes(aixMaxUnpacked))}
			}
			return nil, &InputError{File: p, Msg: fmt.Sprintf("corrupt or truncated %s archive: %v; %s", kind, err, aixExpected)}
		}
		if entries++; entries > aixMaxEntries {
			return nil, &InputError{File: p, Msg: fmt.Sprintf("more than %d entries, the limit for an AIX bundle (see docs/limits.md)", aixMaxEntries)}
		}
		parts, err := entryParts(hdr.Name)
		if err != nil {
			return nil, &InputError{File: p, Msg: fmt.Sprintf("refusing archive entry %q: %v", trunc(hdr.Name, 80), err)}
		}
		if len(parts) == 0 {
			continue
		}
		// The bundle's top: the archive's root, or one directory holding it
		// (tar czf db1.tar.gz db1.aixbundle/), decided by the first entry.
		if !decided {
			decided = true
			if !aixWanted(parts) && parts[0] != "commands" && (len(parts) > 1 || hdr.Typeflag == tar.TypeDir) {
				prefix = parts[0]
			}
		}
		if prefix != "" {
			if parts[0] != prefix {
				continue
			}
			parts = parts[1:]
		}
		if !aixWanted(parts) {
			continue
		}
		name := strings.Join(parts, "/")
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeRegA:
		case tar.TypeDir:
			continue
		default:
			b.Unread[name] = "refused: not a regular file (a link, FIFO or device in a bundle is never read)"
			continue
		}
		if hdr.Size > aixMaxFile {
			b.Unread[name] = fmt.Sprintf("refused: %s is larger than the limit of %s", name, confine.Bytes(aixMaxFile))
			continue
		}
		if total += hdr.Size; total > aixMaxTotal {
			return nil, &InputError{File: p, Msg: fmt.Sprintf("the bundle holds more than %s of command output, the limit for an AIX bundle (see docs/limits.md)", confine.Bytes(aixMaxTotal))}
		}
		data, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil {
			if errors.Is(err, errUnpackLimit) {
				return nil, &InputError{File: p, Msg: fmt.Sprintf("the %s archive unpacks to more than %s, the limit for an AIX bundle (see docs/limits.md): refusing it (a decompression bomb?)", kind, confine.Bytes(aixMaxUnpacked))}
			}
			return nil, &InputError{File: p, Msg: fmt.Sprintf("corrupt or truncated %s archive at %s: %v", kind, name, err)}
		}
		if _, dup := b.Files[name]; dup {
			delete(b.Unread, name)
		}
		b.Files[name] = data
	}
	if len(b.Files) == 0 && len(b.Unread) == 0 {
		return nil, &InputError{File: p, Msg: "archive holds no AIX bundle: no meta and no commands/ at its top or under one directory; " + aixExpected}
	}
	return b, nil
}
