package bench

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
)

// sink keeps measured loops' results alive.
var sink atomic.Uint64

// readSmall reads a kernel file of at most 1 MiB.
func readSmall(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil {
		return "", err
	}
	if len(b) > 1<<20 {
		return "", fmt.Errorf("%s: larger than 1 MiB", path)
	}
	return string(b), nil
}

func splitLines(s string) []string {
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

func itoa(i int) string { return fmt.Sprint(i) }
