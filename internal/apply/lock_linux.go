package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockState takes the state directory's lock (flock, released by the kernel
// when the process dies, so a kill -9 leaves no stale lock).
func lockState(stateDir string) (func(), error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(stateDir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another dbhost apply or rollback holds %s", f.Name())
	}
	return func() { f.Close() }, nil
}
