package facts

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Virsh runs `virsh ARGS...` read-only against the host's system libvirtd
// and returns its standard output; an error says why it could not (not
// installed, libvirtd not running, permission).
type Virsh func(args ...string) ([]byte, error)

type libvirtAsk struct{ virsh Virsh }

// libvirtDir is where libvirtd keeps the persistent definitions of its
// QEMU/KVM domains, one NAME.xml each.
const libvirtDir = "/etc/libvirt/qemu"

// sosVirshDir holds the sosreport virsh plugin's outputs: `virsh -r
// dumpxml NAME` of every domain `virsh -r list --all` listed, named
// virsh_-r_dumpxml_NAME.
const sosVirshDir = "/sos_commands/virsh"

func init() {
	register("libvirt", StageSources, readLibvirt, "libvirt")
}

// readLibvirt fills Snap.Libvirt when the guests were asked for: on the
// live host `virsh dumpxml` of every defined domain when virsh answers, in
// a sosreport the virsh plugin's dumpxml outputs, else (and on a --root
// tree) the definition files under etc/libvirt/qemu. A definition that
// cannot be parsed is listed in Errors with its file and line.
func readLibvirt(c *Collector) {
	if c.libvirt == nil {
		return
	}
	lv := &snapshot.Libvirt{Domains: []snapshot.Domain{}}
	var notes []string
	done := false
	switch {
	case c.Root.Live && c.libvirt.virsh != nil:
		if err := c.libvirtVirsh(lv); err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "virsh ") { // a failed call names itself
				msg = "virsh: " + msg
			}
			notes = append(notes, msg)
		} else {
			done = true
		}
	case c.Root.Sos:
		n, err := c.libvirtSos(lv)
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("%s: %s", sosVirshDir, Reason(err)))
		case n == 0:
			notes = append(notes, "no "+sosVirshDir+"/virsh_-r_dumpxml_* (the sosreport's virsh plugin listed no domain)")
		default:
			done = true
		}
	}
	if !done {
		if err := c.libvirtFiles(lv); err != nil {
			c.Absent("libvirt.domains", libvirtDir, err)
		}
		if len(notes) > 0 {
			notes = append(notes, "read "+libvirtDir+"/*.xml")
		}
	}
	lv.Note = strings.Join(notes, "; ")
	if run := c.Int("libvirt.ksm", "/sys/kernel/mm/ksm/run"); run != nil {
		lv.KSM = &snapshot.KSM{Run: run, PagesShared: c.IntQuiet("/sys/kernel/mm/ksm/pages_shared"),
			PagesSharing: c.IntQuiet("/sys/kernel/mm/ksm/pages_sharing")}
	}
	sort.SliceStable(lv.Domains, func(i, j int) bool { return lv.Domains[i].Name < lv.Domains[j].Name })
	c.mu.Lock()
	c.Snap.Libvirt = lv
	c.mu.Unlock()
}

func (c *Collector) libvirtVirsh(lv *snapshot.Libvirt) error {
	out, err := c.libvirt.virsh("list", "--all", "--name")
	if err != nil {
		return err
	}
	lv.Source = "virsh"
	for _, name := range strings.Split(string(out), "\n") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		where := "virsh dumpxml " + name
		b, err := c.libvirt.virsh("dumpxml", name)
		if err != nil {
			lv.Errors = append(lv.Errors, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		addDomain(lv, where, b)
	}
	return nil
}

// sosDumpxml: a virsh plugin output file of `virsh [-r] dumpxml NAME`
// (not net-dumpxml, pool-dumpxml or nwfilter-dumpxml).
func sosDumpxml(f string) bool {
	for _, p := range []string{"virsh_-r_dumpxml_", "virsh_--readonly_dumpxml_", "virsh_dumpxml_"} {
		if strings.HasPrefix(f, p) && len(f) > len(p) {
			return true
		}
	}
	return false
}

func (c *Collector) libvirtSos(lv *snapshot.Libvirt) (int, error) {
	names, err := c.Root.ReadDirNames(sosVirshDir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range names {
		if !sosDumpxml(f) {
			continue
		}
		p := path.Join(sosVirshDir, f)
		b, err := c.readConfigFile(p)
		if err != nil {
			lv.Errors = append(lv.Errors, fmt.Sprintf("%s: %s", p, Reason(err)))
			continue
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue // virsh failed when sos ran it
		}
		n++
		addDomain(lv, p, b)
	}
	if n > 0 {
		lv.Source = "sosreport virsh"
	}
	return n, nil
}

func (c *Collector) libvirtFiles(lv *snapshot.Libvirt) error {
	lv.Source = "files"
	names, err := c.Root.ReadDirNames(libvirtDir)
	if err != nil {
		return err
	}
	for _, f := range names {
		if !strings.HasSuffix(f, ".xml") {
			continue
		}
		p := path.Join(libvirtDir, f)
		if st, err := c.Root.Stat(p); err == nil && st.IsDir() {
			continue
		}
		b, err := c.readConfigFile(p)
		if err != nil {
			lv.Errors = append(lv.Errors, fmt.Sprintf("%s: %s", p, Reason(err)))
			continue
		}
		addDomain(lv, p, b)
	}
	return nil
}

func addDomain(lv *snapshot.Libvirt, where string, b []byte) {
	d, err := ParseDomain(bytes.NewReader(b))
	if err != nil {
		lv.Errors = append(lv.Errors, fmt.Sprintf("%s: %v", where, err))
		return
	}
	d.File = where
	lv.Domains = append(lv.Domains, *d)
}
