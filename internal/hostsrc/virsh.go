package hostsrc

import (
	"time"

	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/libvirt"
)

// liveVirsh reads the guests of this host from the system libvirtd (as a
// user virsh would otherwise ask the session daemon, which holds none of
// the host's guests), read-only: nothing can be changed through the
// connection. One call is bounded in time (a hung libvirtd must not hang
// the audit) and in output (libvirt.MaxXML, the facts parser's bound).
var liveVirsh facts.Virsh = libvirt.Conn{URI: "qemu:///system", ReadOnly: true, Timeout: 30 * time.Second}.Output
