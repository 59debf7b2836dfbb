//go:build !linux

package facts

import (
	"errors"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// readAttr reads a small attribute file and trims it (see net_linux.go).
func readAttr(r Root, p string) (string, error) {
	b, err := r.ReadFile(p)
	if err != nil {
		return "", err
	}
	return trimSpaceString(b), nil
}

// coalesceReader: interrupt coalescing is read with a Linux ioctl only.
type coalesceReader struct{}

func newCoalesceReader() *coalesceReader { return &coalesceReader{} }
func (*coalesceReader) close()           {}
func (*coalesceReader) read(string) (*snapshot.Coalesce, error) {
	return nil, errors.New("interrupt coalescing is read on Linux only")
}
