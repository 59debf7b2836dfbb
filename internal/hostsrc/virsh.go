package hostsrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/facts"
)

// virshTimeout bounds one virsh call (a hung libvirtd must not hang the
// audit); virshMaxBytes one call's output (a domain definition is read
// within the facts parser's bound, 4 MiB).
const (
	virshTimeout  = 30 * time.Second
	virshMaxBytes = 4<<20 + 1
)

// virshURI is the system libvirtd's: as a user virsh would otherwise ask
// the session daemon, which holds none of the host's guests.
const virshURI = "qemu:///system"

// liveVirsh runs virsh read-only (--readonly: nothing can be changed
// through this connection) against the system libvirtd.
func liveVirsh(args ...string) ([]byte, error) {
	bin, err := exec.LookPath("virsh")
	if err != nil {
		return nil, errors.New("not installed (no virsh in PATH)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), virshTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--readonly", "--connect", virshURI}, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out := &capped{max: virshMaxBytes}
	var stderr capped
	stderr.max = 4096
	cmd.Stdout, cmd.Stderr = out, &stderr
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("virsh %s: no answer within %v", strings.Join(args, " "), virshTimeout)
	case err != nil:
		msg := strings.TrimSpace(stderr.b.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("virsh %s: %s", strings.Join(args, " "), msg)
	case out.over:
		return nil, fmt.Errorf("virsh %s: more than %d bytes of output", strings.Join(args, " "), virshMaxBytes-1)
	}
	return out.b.Bytes(), nil
}

// capped keeps the first max bytes written and notes the rest.
type capped struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room < len(p) {
		c.over = true
		if room > 0 {
			c.b.Write(p[:room])
		}
		return len(p), nil
	}
	return c.b.Write(p)
}

var _ facts.Virsh = liveVirsh
