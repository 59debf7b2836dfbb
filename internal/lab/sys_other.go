//go:build unix && !linux

package lab

import (
	"errors"
	"os"
	"syscall"
)

// The lab runs QEMU on Linux hosts only; elsewhere the package builds (the
// project cross-compiles ./...) and locking reports why it cannot run.

func tryLock(f *os.File) (bool, error) { return false, errors.New("the NUMA lab runs on Linux only") }

func unlockFile(f *os.File) {}

func qemuProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
