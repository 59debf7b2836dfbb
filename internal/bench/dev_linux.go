//go:build linux

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// setPdeathsig: the child dies with this process (SIGKILL), and gets its
// own process group so that killing it kills what it forked (fio's jobs).
func setPdeathsig(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// killGroup kills the child's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}

// CheckDevice refuses a block device that holds a mounted filesystem (on
// itself or a partition), is used for swap, or is held by another device
// (LVM, MD, multipath: /sys/.../holders).
func CheckDevice(dev string) error {
	var st unix.Stat_t
	if err := unix.Stat(dev, &st); err != nil {
		return fmt.Errorf("--device %s: %w", dev, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return fmt.Errorf("--device %s: not a block device", dev)
	}
	maj, min := unix.Major(st.Rdev), unix.Minor(st.Rdev)
	sys := fmt.Sprintf("/sys/dev/block/%d:%d", maj, min)
	real, err := filepath.EvalSymlinks(sys)
	if err != nil {
		return fmt.Errorf("--device %s: %s: %w", dev, sys, err)
	}
	// The device and its partitions.
	nums := map[string]string{devNumber(maj, min): filepath.Base(real)}
	names := []string{filepath.Base(real)}
	ents, _ := os.ReadDir(real)
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(real, e.Name(), "partition")); err == nil && len(b) > 0 {
			if d, err := os.ReadFile(filepath.Join(real, e.Name(), "dev")); err == nil {
				nums[strings.TrimSpace(string(d))] = e.Name()
				names = append(names, e.Name())
			}
		}
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("--device %s: cannot check its mounts: %w", dev, err)
	}
	mounted := MountedDevices(string(mi))
	for num, name := range nums {
		if mounted[num] {
			return fmt.Errorf("--device %s: %s holds a mounted filesystem: refusing to touch it", dev, name)
		}
	}
	if sw, err := os.ReadFile("/proc/swaps"); err == nil {
		for _, l := range splitLines(string(sw))[1:] {
			f := strings.Fields(l)
			if len(f) == 0 {
				continue
			}
			for _, n := range names {
				if filepath.Base(f[0]) == n {
					return fmt.Errorf("--device %s: %s is used for swap: refusing", dev, n)
				}
			}
		}
	}
	for _, n := range names {
		dir := filepath.Join(real, "holders")
		if n != filepath.Base(real) {
			dir = filepath.Join(real, n, "holders")
		}
		if hs, _ := os.ReadDir(dir); len(hs) > 0 {
			return fmt.Errorf("--device %s: %s is held by %s (LVM, MD or multipath): refusing", dev, n, hs[0].Name())
		}
	}
	return nil
}
