package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSpecialOutputs: a FIFO nobody reads is refused without waiting; of
// the character devices only /dev/null (and a terminal) is written.
func TestSpecialOutputs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var re *RefusedError
	if err := WriteOwnFile(fifo, []byte("x"), 0, nil); !errors.As(err, &re) || !strings.Contains(err.Error(), "FIFO nobody reads") {
		t.Errorf("FIFO without a reader: %v", err)
	}
	if err := CheckOwnFile(fifo, 0, nil); err != nil {
		t.Errorf("CheckOwnFile of a FIFO: %v", err)
	}
	if err := WriteOwnFile(os.DevNull, []byte("x"), 0, nil); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	for _, dev := range []string{"/dev/zero", "/dev/full", "/dev/random"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		if err := WriteOwnFile(dev, []byte("x"), 0, nil); !errors.As(err, &re) {
			t.Errorf("%s: %v; want refused", dev, err)
		}
		if err := CheckOwnFile(dev, 0, nil); !errors.As(err, &re) {
			t.Errorf("CheckOwnFile %s: %v; want refused", dev, err)
		}
	}
}
