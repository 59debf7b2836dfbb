package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks is how many symlinks a -o path may go through (the kernel's
// MAXSYMLINKS).
const maxLinks = 40

// resolved is the place an -o path names, every symlink on the way
// resolved under the rule of mayFollow.
type resolved struct {
	real string // the path with no symlink in it (or a /proc link: magic)
	// dir is the Lstat of real's directory as the walk found it (nil when
	// it does not exist): the directory written into must still be it.
	dir fs.FileInfo
	// magic: real goes through a kernel link of /proc (/dev/fd/N,
	// /proc/self/fd/N), which names an open file, not a path: it is opened
	// as it is (a pipe, a terminal), never replaced.
	magic bool
}

// resolve follows the symlinks of path one component at a time, the way
// the kernel would, but refuses one that another user may have planted:
// see mayFollow. filepath.EvalSymlinks reads the links and hands back a
// plain path, which the kernel then opens without its own check
// (fs.protected_symlinks applies only to the links it follows itself).
func resolve(path string) (resolved, error) {
	if path == "" {
		return resolved{}, &fs.PathError{Op: "open", Path: path, Err: syscall.ENOENT}
	}
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return resolved{}, err
		}
		path = wd + "/" + path // not Clean: "link/.." is the link's target's parent
	}
	todo := strings.Split(path, "/")
	cur := "/"
	curSt, err := os.Lstat(cur)
	if err != nil {
		return resolved{}, err
	}
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			if curSt, err = os.Lstat(cur); err != nil {
				return resolved{}, err
			}
			continue
		}
		next := filepath.Join(cur, c)
		st, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// The rest does not exist: what is written there is created
			// (or fails: a directory that does not exist).
			rest := filepath.Join(append([]string{next}, todo...)...)
			if len(todo) > 0 {
				curSt = nil
			}
			return resolved{real: rest, dir: curSt}, nil
		}
		if err != nil {
			return resolved{}, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			if len(todo) > 0 && nonEmpty(todo) {
				cur, curSt = next, st
				continue
			}
			return resolved{real: next, dir: curSt}, nil
		}
		if cur == "/proc" || strings.HasPrefix(cur, "/proc/") {
			// /proc/self, /proc/PID/fd/N: the kernel's own links, which
			// only the kernel makes; "pipe:[1234]" is no path to follow.
			return resolved{real: filepath.Join(append([]string{next}, todo...)...), magic: true}, nil
		}
		if err := mayFollow(cur, curSt, next, st); err != nil {
			return resolved{}, err
		}
		if links++; links > maxLinks {
			return resolved{}, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return resolved{}, err
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
			if curSt, err = os.Lstat(cur); err != nil {
				return resolved{}, err
			}
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return resolved{real: cur, dir: nil}, nil
}

// nonEmpty reports whether a component other than "" or "." is left.
func nonEmpty(todo []string) bool {
	for _, c := range todo {
		if c != "" && c != "." {
			return true
		}
	}
	return false
}

// mayFollow is the kernel's fs.protected_symlinks rule, for every sticky
// directory (/tmp, a 1777 or 1770 drop directory): a symlink there is
// followed only when it belongs to the user running dbhost or to the
// directory's owner. Anyone may create a name in such a directory; a link
// planted there by another user would make root replace, or write into,
// whatever file the link names.
func mayFollow(dir string, dirSt fs.FileInfo, link string, linkSt fs.FileInfo) error {
	if dirSt == nil || dirSt.Mode()&fs.ModeSticky == 0 {
		return nil
	}
	lu, ok1 := owner(linkSt)
	du, ok2 := owner(dirSt)
	if ok1 && ok2 && (lu == uint32(os.Geteuid()) || lu == du) {
		return nil
	}
	return &RefusedError{Dir: link, Why: fmt.Sprintf("is a symlink owned by uid %d in the sticky directory %s (owned by uid %d): not followed "+
		"(another user may have planted it to make dbhost replace the file it points to; the kernel's fs.protected_symlinks rule); "+
		"name the file itself, or write into a directory only you can write", lu, dir, du)}
}

// owner is a file's owner uid.
func owner(st fs.FileInfo) (uint32, bool) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Uid, true
	}
	return 0, false
}

// group is a file's group id.
func group(st fs.FileInfo) uint32 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Gid
	}
	return 0
}

// mayReplace is the kernel's fs.protected_regular rule, for every sticky
// directory: a file there that belongs neither to the user running dbhost
// nor to the directory's owner is not replaced — another user may have put
// it there (an empty file, to be replaced by root's output they then own
// and may rewrite, or hold open).
func mayReplace(file string, dirSt, st fs.FileInfo) error {
	if dirSt == nil || dirSt.Mode()&fs.ModeSticky == 0 {
		return nil
	}
	fu, ok1 := owner(st)
	du, ok2 := owner(dirSt)
	if ok1 && ok2 && (fu == uint32(os.Geteuid()) || fu == du) {
		return nil
	}
	return fmt.Errorf("exists, owned by uid %d, in the sticky directory %s (owned by uid %d): not replaced "+
		"(another user may have put it there; the kernel's fs.protected_regular rule); choose a name that does not exist yet", fu, filepath.Dir(file), du)
}
