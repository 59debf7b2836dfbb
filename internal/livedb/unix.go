package livedb

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// acceptCon is __SO_ACCEPTCON in /proc/net/unix's Flags column: a listening socket.
const acceptCon = 0x10000

// parseUnixListeners reads /proc/net/unix ("Num RefCount Protocol Flags
// Type St Inode Path") and returns the path of the first listening
// socket whose inode is in inodes ("" when none; abstract sockets, "@...",
// are skipped: a client cannot name them by path).
func parseUnixListeners(r io.Reader, inodes map[string]bool) (string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if line == 1 && len(f) > 0 && f[0] == "Num" {
			continue
		}
		if len(f) < 7 {
			return "", fmt.Errorf("/proc/net/unix: malformed: line %d: expected at least 7 columns", line)
		}
		flags, err := strconv.ParseUint(f[3], 16, 32)
		if err != nil {
			return "", fmt.Errorf("/proc/net/unix: malformed: line %d: flags %q: expected hexadecimal", line, f[3])
		}
		if len(f) < 8 || flags&acceptCon == 0 || !inodes[f[6]] || strings.HasPrefix(f[7], "@") {
			continue
		}
		return strings.Join(f[7:], " "), nil
	}
	return "", sc.Err()
}
