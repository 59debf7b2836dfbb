package apply

import (
	"fmt"
	"os"
)

// lockFile is the state directory's lock: flock on it keeps two applies,
// rollbacks or place --apply runs from interleaving (the kernel releases it
// when the holder dies, so a kill -9 leaves no stale lock). The exclusive
// holder writes its PID into it, and empties it when done. (Rollback looks
// for it on every system: no journal and no lock file is nothing to do.)
const lockFile = "lock"

// StateLock is a held state-directory lock (see Lock).
type StateLock struct {
	f         *os.File
	exclusive bool
	// Created: the state directory did not exist; Lock created it (the
	// command says so: dbhost never makes a directory unannounced).
	Created bool
}

// LockedError says another dbhost apply, rollback or place --apply holds
// the state directory's lock.
type LockedError struct {
	PID  int // 0 when the holder did not write it
	Path string
}

func (e *LockedError) Error() string {
	if e.PID <= 0 {
		return fmt.Sprintf("another dbhost command (a verify or dry run, no pid recorded) holds the lock %s", e.Path)
	}
	return fmt.Sprintf("another dbhost apply/rollback (pid %d) holds the lock %s", e.PID, e.Path)
}
