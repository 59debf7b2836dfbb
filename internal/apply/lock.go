package apply

import (
	"fmt"
	"os"
)

// StateLock is a held state-directory lock (see Lock).
type StateLock struct {
	f         *os.File
	exclusive bool
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
