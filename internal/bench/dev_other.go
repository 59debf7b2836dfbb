//go:build !linux

package bench

import (
	"fmt"
	"os/exec"
	"runtime"
)

func setPdeathsig(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// CheckDevice: dbhost checks mounts and holders on Linux only.
func CheckDevice(dev string) error {
	return fmt.Errorf("--device: only on Linux (this is %s); use --file", runtime.GOOS)
}
