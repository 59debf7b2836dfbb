package artifacts

import (
	"bytes"

	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/libvirt"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// ParseDomain parses a libvirt domain definition (virsh dumpxml output or
// /etc/libvirt/qemu/NAME.xml) with the facts package's parser, the one
// dbhost --libvirt uses. Malformed XML rejects the whole definition: nil
// and one *Error with the line.
// A definition is bounded by libvirt.MaxXML, as dbhost --libvirt bounds
// virsh's output and the files it reads (docs/limits.md), not by the
// artifact limit: a guest's definition is a few KiB.
func ParseDomain(b []byte) (*snapshot.Domain, []error) {
	if len(b) > libvirt.MaxXML {
		return nil, []error{errAt(0, "a libvirt domain XML of %d bytes, more than the %s limit for one (docs/limits.md; a guest's definition is a few KiB)",
			len(b), sizeText(libvirt.MaxXML))}
	}
	d, err := facts.ParseDomain(bytes.NewReader(b))
	if err != nil {
		return nil, factsErrors(err)
	}
	return d, nil
}
