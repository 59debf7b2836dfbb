package outdir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// setOwnAttr keeps sum in f's OwnAttr attribute.
func setOwnAttr(f *os.File, sum string) error {
	return unix.Fsetxattr(int(f.Fd()), OwnAttr, []byte(sum), 0)
}

// ownAttr returns f's OwnAttr attribute, "" when it has none.
func ownAttr(f *os.File) string {
	buf := make([]byte, 128)
	n, err := unix.Fgetxattr(int(f.Fd()), OwnAttr, buf)
	if err != nil || n <= 0 {
		return ""
	}
	return string(buf[:n])
}

// allowedDevice reports whether the character device st is /dev/null (1:3)
// or a terminal: a Unix98 pseudo-terminal (majors 136-143, devices.txt) or
// a device of the kernel's tty class (a console, a serial line, /dev/tty:
// /sys/dev/char/MAJ:MIN/subsystem). It is decided from the device number,
// without opening the device.
func allowedDevice(_ string, st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	maj, min := unix.Major(uint64(s.Rdev)), unix.Minor(uint64(s.Rdev))
	switch {
	case maj == 1 && min == 3:
		return true
	case maj >= 136 && maj <= 143:
		return true
	}
	l, err := os.Readlink(fmt.Sprintf("/sys/dev/char/%d:%d/subsystem", maj, min))
	return err == nil && filepath.Base(l) == "tty"
}
