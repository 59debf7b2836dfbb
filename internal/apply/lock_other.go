//go:build !linux

package apply

import "os"

// lockState only creates the state directory where flock is not available.
func lockState(stateDir string) (func(), error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	return func() {}, nil
}
