package facts

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"runtime"
	"strings"
)

func init() { register("host", StageBase, readHost, "host") }

// cpuinfoFlags returns the first "flags" (x86) line's words of /proc/cpuinfo
// without reading the rest of a large file.
func cpuinfoFlags(r io.Reader) []string {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 8192), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "flags" {
			return strings.Fields(v)
		}
	}
	return nil
}

// virtFromDMI maps DMI vendor/product strings to a hypervisor name.
func virtFromDMI(vendor, product string) string {
	v, p := strings.ToLower(vendor), strings.ToLower(product)
	switch {
	case strings.Contains(v, "qemu"):
		return "qemu" // KVM-accelerated or pure emulation; readVirt tells them apart
	case strings.Contains(p, "kvm") || strings.Contains(v, "red hat") || strings.Contains(p, "openstack"):
		return "kvm"
	case strings.Contains(v, "amazon ec2"), strings.Contains(v, "google"):
		return "kvm"
	case strings.Contains(v, "vmware"):
		return "vmware"
	case strings.Contains(v, "microsoft") && strings.Contains(p, "virtual"):
		return "hyperv"
	case strings.Contains(v, "xen"):
		return "xen"
	case strings.Contains(v, "innotek"), strings.Contains(p, "virtualbox"):
		return "virtualbox"
	case strings.Contains(v, "parallels"):
		return "parallels"
	}
	return ""
}

var goarchToUname = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "ppc64le": "ppc64le", "ppc64": "ppc64", "s390x": "s390x", "386": "i686"}

func readHost(c *Collector) {
	h := &c.Snap.Host
	h.CmdlineArgs = map[string]string{}
	if s := c.String("host.hostname", "/proc/sys/kernel/hostname"); s != nil {
		h.Hostname = *s
	} else if c.Root.Live {
		if n, err := os.Hostname(); err == nil {
			h.Hostname = n
			c.Resolve("host.hostname")
		}
	}
	if s := c.String("host.kernel", "/proc/sys/kernel/osrelease"); s != nil {
		h.Kernel = *s
	}
	if s, err := c.Root.ReadString("/proc/sys/kernel/arch"); err == nil {
		h.Arch = s
	} else if c.Root.Live {
		h.Arch = goarchToUname[runtime.GOARCH]
	}
	osr := "/etc/os-release"
	b, err := c.Root.ReadFile(osr)
	if err != nil {
		osr = "/usr/lib/os-release"
		b, err = c.Root.ReadFile(osr)
	}
	if err != nil {
		// Before systemd (RHEL 6, SLES 11) only the vendor's release file
		// names the system: "Red Hat Enterprise Linux Server release 6.5 (Santiago)".
		if name, id, ver, _, ok := readReleaseFile(c); ok {
			h.OS, h.OSID, h.OSVersionID = name, id, ver
		} else {
			c.Absent("host.os", "/etc/os-release", err)
		}
	} else {
		m := parseOSRelease(bytes.NewReader(b))
		h.OS, h.OSID, h.OSVersionID = m["PRETTY_NAME"], m["ID"], m["VERSION_ID"]
		if h.OS == "" {
			h.OS = strings.TrimSpace(m["NAME"] + " " + m["VERSION"])
		}
	}
	if s := c.String("host.cmdline", "/proc/cmdline"); s != nil {
		h.Cmdline = *s
		h.CmdlineArgs = parseCmdline(*s)
	}
	readVirt(c)
}

func readVirt(c *Collector) {
	v := &c.Snap.Host.Virt
	var ev []string
	if f, err := c.Root.ReadFile("/proc/cpuinfo"); err == nil {
		for _, fl := range cpuinfoFlags(bytes.NewReader(f)) {
			if fl == "hypervisor" {
				v.Hypervisor = true
				ev = append(ev, "cpuinfo flag hypervisor")
				break
			}
		}
	} else {
		c.Absent("host.virt.hypervisor", "/proc/cpuinfo", err)
	}
	v.DMIVendor = c.StringQuiet("/sys/class/dmi/id/sys_vendor")
	v.DMIProduct = c.StringQuiet("/sys/class/dmi/id/product_name")
	if t := virtFromDMI(v.DMIVendor, v.DMIProduct); t != "" {
		v.Type = t
		ev = append(ev, "DMI "+strings.TrimSpace(v.DMIVendor+" "+v.DMIProduct))
	}
	// QEMU's DMI is the same with and without KVM; only a KVM guest is
	// offered the kvm-clock clocksource.
	if cs := c.StringQuiet("/sys/devices/system/clocksource/clocksource0/available_clocksource"); strings.Contains(cs, "kvm-clock") {
		if v.Type == "qemu" || v.Type == "" {
			v.Type = "kvm"
		}
		ev = append(ev, "kvm-clock clocksource")
	}
	if t := c.StringQuiet("/sys/hypervisor/type"); t != "" {
		if v.Type == "" {
			v.Type = t
		}
		ev = append(ev, "/sys/hypervisor/type "+t)
	}
	if c.Root.Exists("/proc/ppc64/lparcfg") {
		if v.Type == "" {
			v.Type = "powervm"
		}
		ev = append(ev, "/proc/ppc64/lparcfg (LPAR)")
	}
	v.Guest = v.Hypervisor || v.Type != ""
	if v.Guest && v.Type == "" && v.Hypervisor {
		v.Type = "unknown"
	}
	v.Evidence = strings.Join(ev, "; ")
}
