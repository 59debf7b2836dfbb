package outdir

import (
	"os"

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
