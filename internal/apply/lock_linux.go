package apply

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/confine"
)

// readersWait is how long Lock waits for shared holders (a verify, a dry
// run: they take milliseconds) before giving up.
const readersWait = 5 * time.Second

// Lock takes the state directory's lock exclusively (apply, rollback,
// place --apply), creating the directory when needed (StateLock.Created
// says so: the command tells the operator). Another exclusive
// holder is a *LockedError at once; shared holders are waited for a few
// seconds. Take it before reading anything the run compares or writes.
func Lock(stateDir string) (*StateLock, error) {
	if err := checkStateDir(stateDir); err != nil {
		return nil, err
	}
	_, serr := os.Lstat(stateDir)
	created := os.IsNotExist(serr)
	p := filepath.Join(stateDir, lockFile)
	if err := confine.CheckFault("mkdir", stateDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	s, err := openState(stateDir)
	if err != nil {
		return nil, err
	}
	defer s.close()
	if err := confine.CheckFault("create", p); err != nil {
		return nil, err
	}
	// Never O_TRUNC at the open: a lock that is not dbhost's own file (a
	// link, a hard link to a file elsewhere) is refused before anything
	// is written to it.
	f, err := s.open(lockFile, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	err = confine.CheckFault("lock", p)
	if err == nil {
		err = flockWait(f, syscall.LOCK_EX, readersWait)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &StateLock{f: f, exclusive: true, Created: created}, nil
}

// LockShared takes the lock shared (a dry run, verify: they read what an
// apply writes) when the state directory has a lock file; it creates
// nothing. A lock file it may not open (a non-root reader of the live
// host's state) is no lock: nil, nil. An exclusive holder is a
// *LockedError; a lock that is a link or not a regular file a *StateError.
func LockShared(stateDir string) (*StateLock, error) {
	s, err := openState(stateDir)
	if err != nil {
		var se *StateError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, nil
	}
	defer s.close()
	f, err := s.open(lockFile, os.O_RDONLY, 0)
	if err != nil {
		var se *StateError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, nil
	}
	// The holder's PID is written right after it locked: wait a moment for it.
	if err := flockWait(f, syscall.LOCK_SH, time.Second); err != nil {
		f.Close()
		return nil, err
	}
	return &StateLock{f: f}, nil
}

// flockWait takes the lock (how: LOCK_EX or LOCK_SH) without blocking on
// an exclusive holder: while the lock is held it reads the holder's PID
// (an exclusive holder writes it right after locking), fails at once with
// a *LockedError naming it, and waits up to wait when there is none yet
// (shared holders, or a holder about to write it).
func flockWait(f *os.File, how int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if pid := holderPID(f); pid > 0 || time.Now().After(deadline) {
			return &LockedError{PID: pid, Path: f.Name()}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func holderPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

// Unlock releases the lock (nil-safe); an exclusive holder empties the
// file first, so that no later loser names a stale PID.
func (l *StateLock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	if l.exclusive {
		_ = l.f.Truncate(0)
	}
	l.f.Close()
	l.f = nil
}
