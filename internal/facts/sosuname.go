package facts

import (
	"fmt"
	"strings"
)

// parseUname parses `uname -a` output ("Linux db1 5.14.0-362.el9.x86_64 #1
// SMP PREEMPT_DYNAMIC ... x86_64 x86_64 x86_64 GNU/Linux") into the node
// name, the kernel release and, when recognisable, the machine.
func parseUname(s string) (node, release, machine string, err error) {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	f := strings.Fields(line)
	if len(f) < 3 {
		return "", "", "", parseErr(1, "expected \"KERNEL-NAME NODENAME RELEASE ...\" (uname -a), got %q", trunc(line, 60))
	}
	node, release = f[1], f[2]
	if len(f) >= 5 && f[len(f)-1] == "GNU/Linux" {
		if m := f[len(f)-2]; unameMachines[m] {
			machine = m
		}
	}
	return node, release, machine, nil
}

var unameMachines = map[string]bool{"x86_64": true, "aarch64": true, "ppc64le": true, "ppc64": true, "s390x": true, "i686": true, "i386": true, "armv7l": true, "riscv64": true}

// validHostname accepts one word without control characters.
func validHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// sosHost fills host name and kernel release from the top-level hostname
// and uname files (or sysctl -a) when /proc/sys copies were missing.
func sosHost(c *Collector, sysctlA map[string]string) {
	h := &c.Snap.Host
	var uname struct{ node, release, machine, path string }
	var unameErr error
	for _, p := range []string{sosUname, sosUnameA} {
		s, err := c.Root.ReadString(p)
		if err != nil {
			if unameErr == nil {
				unameErr = err
			}
			continue
		}
		uname.node, uname.release, uname.machine, err = parseUname(s)
		if err != nil {
			unameErr = err
			continue
		}
		uname.path = p
		break
	}
	if h.Arch == "" && uname.machine != "" {
		h.Arch = uname.machine
	}
	if c.IsAbsent("host.hostname") {
		switch s, err := c.Root.ReadString(sosHostname); {
		case err == nil && validHostname(s):
			h.Hostname = s
			c.Resolve("host.hostname")
		case validHostname(sysctlA["kernel.hostname"]):
			h.Hostname = sysctlA["kernel.hostname"]
			c.Resolve("host.hostname")
		case uname.path != "" && validHostname(uname.node):
			h.Hostname = uname.node
			c.Resolve("host.hostname")
		case err != nil:
			c.Absent("host.hostname", sosHostname, err)
		default:
			c.AbsentReason("host.hostname", sosHostname, fmt.Sprintf("malformed: expected one host name, got %q", trunc(s, 40)))
		}
	}
	if c.IsAbsent("host.kernel") {
		switch {
		case uname.path != "":
			h.Kernel = uname.release
			c.Resolve("host.kernel")
		case sysctlA["kernel.osrelease"] != "":
			h.Kernel = sysctlA["kernel.osrelease"]
			c.Resolve("host.kernel")
		default:
			c.Absent("host.kernel", sosUname, unameErr)
		}
	}
}
