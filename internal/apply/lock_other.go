//go:build !linux

package apply

import "os"

// Lock only creates the state directory where flock is not available.
func Lock(stateDir string) (*StateLock, error) {
	if err := checkStateDir(stateDir); err != nil {
		return nil, err
	}
	_, serr := os.Lstat(stateDir)
	created := os.IsNotExist(serr)
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	return &StateLock{Created: created}, nil
}

// LockShared is no lock where flock is not available.
func LockShared(string) (*StateLock, error) { return nil, nil }

// Unlock releases the lock (nil-safe).
func (l *StateLock) Unlock() {}
