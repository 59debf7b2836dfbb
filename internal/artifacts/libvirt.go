package artifacts

import (
	"bytes"

	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// ParseDomain parses a libvirt domain definition (virsh dumpxml output or
// /etc/libvirt/qemu/NAME.xml) with the facts package's parser, the one
// dbhost --libvirt uses. Malformed XML rejects the whole definition: nil
// and one *Error with the line.
func ParseDomain(b []byte) (*snapshot.Domain, []error) {
	d, err := facts.ParseDomain(bytes.NewReader(b))
	if err != nil {
		return nil, factsErrors(err)
	}
	return d, nil
}
