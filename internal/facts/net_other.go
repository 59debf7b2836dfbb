//go:build !linux

package facts

import (
	"errors"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// coalesceReader: interrupt coalescing is read with a Linux ioctl only.
type coalesceReader struct{}

func newCoalesceReader() *coalesceReader { return &coalesceReader{} }
func (*coalesceReader) close()           {}
func (*coalesceReader) read(string) (*snapshot.Coalesce, error) {
	return nil, errors.New("interrupt coalescing is read on Linux only")
}
