// Package input reads the files a user gives dbhost — snapshots, plans,
// placement specs, journals — within documented size limits
// (docs/limits.md), so that a huge file, /dev/zero or a FIFO nobody writes
// ends in a clear error (exit 2) rather than in exhausted memory or a hang;
// and keeps the output of the commands dbhost runs within a bound (Capped).
package input

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/dbhost/dbhost/internal/confine"
)

// Error is bad input: the file and what is wrong with it (exit code 2).
type Error struct {
	File string
	Msg  string
}

func (e *Error) Error() string { return e.File + ": " + e.Msg }

// The limits of docs/limits.md (TestLimitsDocumented keeps the table in
// step with these).
const (
	// SnapshotBytes bounds one --snapshot file. A 240-CPU, 8-node host's
	// snapshot is about 1 MiB; decoding takes about 6 times the file's size.
	SnapshotBytes int64 = 64 << 20
	// SnapshotFiles bounds the files one --snapshot glob reads (a fleet).
	// They are read one at a time (memory does not grow with their number);
	// the bound keeps a glob of a whole file system from running for hours.
	SnapshotFiles = 100_000
	// PlanBytes bounds a plan.json (--plan).
	PlanBytes int64 = 16 << 20
	// SpecBytes bounds a placement spec (--spec, also on standard input).
	SpecBytes int64 = 16 << 20
	// JournalBytes bounds one apply journal.
	JournalBytes int64 = 64 << 20
)

// Open opens a file the user named for reading, without blocking (a FIFO
// nobody writes to is not waited for): a regular file, or a pipe or FIFO
// (`<(command)`); a directory, device or socket is refused with the reason.
// what names the input in messages, with its article ("a snapshot").
func Open(path, what string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	m := st.Mode()
	switch {
	case m.IsRegular(), m&fs.ModeNamedPipe != 0:
		return f, st, nil
	case m.IsDir():
		f.Close()
		return nil, nil, &Error{File: path, Msg: "is a directory; expected " + what + " file"}
	}
	f.Close()
	return nil, nil, &Error{File: path, Msg: fmt.Sprintf("not a regular file (%s); expected %s file or a pipe", FileKind(m), what)}
}

// FileKind names a file type for messages ("a FIFO", "a symbolic link").
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsRegular():
		return "a regular file"
	}
	return "type " + m.Type().String()
}

// ReadFile reads a whole file (see Open) of at most limit bytes. A larger
// one is an *Error naming the limit; a regular file is refused by its size
// before anything is read, a pipe after limit+1 bytes.
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, st, err := Open(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Mode().IsRegular() && st.Size() > limit {
		return nil, TooBig(path, what, limit, st.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, TooBig(path, what, limit, -1)
	}
	if len(b) == 0 && !st.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "the pipe gave no data (nothing writes to it?); expected " + what}
	}
	return b, nil
}

// ReadAll reads r (standard input) as ReadFile reads a pipe; name names it.
func ReadAll(r io.Reader, name string, limit int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, TooBig(name, what, limit, -1)
	}
	return b, nil
}

// TooBig is the error for an input over its limit (size -1: unknown).
func TooBig(path, what string, limit, size int64) error {
	msg := fmt.Sprintf("more than the limit for %s (%s, see docs/limits.md)", what, confine.Bytes(limit))
	if size >= 0 {
		msg = confine.Bytes(size) + ", " + msg
	}
	return &Error{File: path, Msg: msg}
}
