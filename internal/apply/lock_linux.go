package apply

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockFile is the state directory's lock: flock on it keeps two applies,
// rollbacks or place --apply runs from interleaving (the kernel releases it
// when the holder dies, so a kill -9 leaves no stale lock). The exclusive
// holder writes its PID into it, and empties it when done.
const lockFile = "lock"

// readersWait is how long Lock waits for shared holders (a verify, a dry
// run: they take milliseconds) before giving up.
const readersWait = 5 * time.Second

// Lock takes the state directory's lock exclusively (apply, rollback,
// place --apply), creating the directory when needed. Another exclusive
// holder is a *LockedError at once; shared holders are waited for a few
// seconds. Take it before reading anything the run compares or writes.
func Lock(stateDir string) (*StateLock, error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(stateDir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(readersWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		// An exclusive holder writes its PID right after taking the lock;
		// an empty file is shared holders (or a holder about to write it).
		if pid := holderPID(f); pid > 0 || time.Now().After(deadline) {
			f.Close()
			return nil, &LockedError{PID: pid, Path: f.Name()}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &StateLock{f: f, exclusive: true}, nil
}

// LockShared takes the lock shared (a dry run, verify: they read what an
// apply writes) when the state directory has a lock file; it creates
// nothing. A lock file it may not open (a non-root reader of the live
// host's state) is no lock: nil, nil. An exclusive holder is a *LockedError.
func LockShared(stateDir string) (*StateLock, error) {
	f, err := os.Open(filepath.Join(stateDir, lockFile))
	if err != nil {
		return nil, nil
	}
	deadline := time.Now().Add(time.Second)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if err == nil {
			return &StateLock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		// Wait for the holder's PID (written right after it locked).
		if pid := holderPID(f); pid > 0 || time.Now().After(deadline) {
			f.Close()
			return nil, &LockedError{PID: pid, Path: f.Name()}
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
