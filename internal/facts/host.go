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

// parseCmdline splits a kernel command line into key → value ("" for flags).
// Double quotes group words ("dyndbg=\"file x.c +p\""); everything after a
// lone "--" belongs to init and is not a kernel parameter.
func parseCmdline(s string) map[string]string {
	args := map[string]string{}
	var words []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			have = true
		case !inQuote && (r == ' ' || r == '\t' || r == '\n'):
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		words = append(words, cur.String())
	}
	for _, w := range words {
		if w == "--" {
			break
		}
		k, v, _ := strings.Cut(w, "=")
		// The kernel treats '-' and '_' alike in parameter names.
		args[strings.ReplaceAll(k, "-", "_")] = v
	}
	return args
}

// parseOSRelease parses os-release(5) KEY=value lines.
func parseOSRelease(r io.Reader) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		m[strings.TrimSpace(k)] = v
	}
	return m
}

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

// releaseFiles are the pre-os-release files: path → os-release ID.
var releaseFiles = []struct{ path, id string }{
	{"/etc/oracle-release", "ol"}, {"/etc/centos-release", "centos"}, {"/etc/redhat-release", "rhel"}, {"/etc/SuSE-release", "sles"},
}

// parseReleaseLine reads "NAME release X.Y (Codename)" (Red Hat family) or
// SuSE-release's first line and "VERSION = 11" / "PATCHLEVEL = 4" lines.
func parseReleaseLine(s string) (name, version string) {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	name = strings.TrimSpace(lines[0])
	if _, rest, ok := strings.Cut(name, " release "); ok {
		version, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
		return name, version
	}
	var major, patch string
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, "=")
		switch strings.TrimSpace(k) {
		case "VERSION":
			major = strings.TrimSpace(v)
		case "PATCHLEVEL":
			patch = strings.TrimSpace(v)
		}
	}
	if major != "" && patch != "" && patch != "0" {
		return name, major + "." + patch
	}
	return name, major
}

// readReleaseFile names the system from the first vendor release file found.
func readReleaseFile(c *Collector) (name, id, version, file string, ok bool) {
	for _, f := range releaseFiles {
		s, err := c.Root.ReadString(f.path)
		if err != nil || strings.TrimSpace(s) == "" {
			continue
		}
		name, version = parseReleaseLine(s)
		return name, f.id, version, f.path, true
	}
	return "", "", "", "", false
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
