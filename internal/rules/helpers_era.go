package rules

import (
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// PkgInstall is the shell command that installs pkg on the host's
// distribution, from os-release ID and VERSION_ID: yum on RHEL, CentOS and
// Oracle Linux 7 and older, dnf from 8 (and on Fedora, Rocky, Alma, Amazon
// Linux 2023), zypper on SLES/openSUSE, apt-get on Debian and Ubuntu. A RHEL
// family release that is not known gets yum, which 8 and later keep as an
// alias of dnf; an unknown distribution gets each manager in turn.
func PkgInstall(h snapshot.Host, pkg string) string {
	major := osMajor(h)
	switch h.OSID {
	case "rhel", "centos", "ol", "scientific", "oracle":
		if major > 0 && major < 8 {
			return "yum install -y " + pkg
		}
		if major >= 8 {
			return "dnf install -y " + pkg
		}
		return "yum install -y " + pkg
	case "fedora", "rocky", "almalinux", "circle":
		return "dnf install -y " + pkg
	case "amzn":
		if major == 2 {
			return "yum install -y " + pkg
		}
		return "dnf install -y " + pkg
	case "sles", "sled", "opensuse", "opensuse-leap", "opensuse-tumbleweed":
		return "zypper install -y " + pkg
	case "debian", "ubuntu", "linuxmint", "raspbian":
		return "apt-get install -y " + pkg
	}
	return "{ dnf install -y " + pkg + " || yum install -y " + pkg + " || zypper install -y " + pkg + " || apt-get install -y " + pkg + "; }"
}

// osMajor is the major release of os-release's VERSION_ID ("6.5" → 6), 0
// when unknown.
func osMajor(h snapshot.Host) int {
	v, _, _ := strings.Cut(h.OSVersionID, ".")
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// rhelFamily reports Red Hat Enterprise Linux and its rebuilds (the
// releases whose tuned, grubby and initscripts follow RHEL's).
func rhelFamily(h snapshot.Host) bool {
	switch h.OSID {
	case "rhel", "centos", "ol", "scientific", "oracle", "rocky", "almalinux", "circle":
		return true
	}
	return false
}

// NMCLIModify is the NetworkManager command that persists settings for an
// interface: nmcli modifies connections, not devices, so the connection the
// interface is active in is looked up when the command runs. It is nil on a
// Red Hat family release 6 or older: its NetworkManager 0.8 has no
// "connection modify" and no -g (NetworkManager 1.8), and its network
// service reads ifcfg files; the callers' ifcfg line is the fix there.
func NMCLIModify(s *snapshot.Snapshot, ifname, settings, note string) []string {
	if m := osMajor(s.Host); rhelFamily(s.Host) && m > 0 && m <= 6 {
		return nil
	}
	return []string{`nmcli connection modify "$(nmcli -g GENERAL.CONNECTION device show ` + ifname + `)" ` + settings + note}
}

// Era-aware fix text: what a host of this kernel's generation can run.

// grubLegacy reports a kernel of the GRUB legacy era (RHEL 6 and older:
// 2.6.x; /boot/grub/grub.conf, no /etc/default/grub or grub2-mkconfig).
func grubLegacy(s *snapshot.Snapshot) bool {
	maj, _, ok := Kernel(s.Host.Kernel)
	return ok && maj < 3
}

// KernelArgFixFor is AddKernelArgFix for this host's boot loader: grubby
// (RHEL 6 onwards) and, on GRUB legacy, the kernel lines of
// /boot/grub/grub.conf instead of /etc/default/grub.
func KernelArgFixFor(s *snapshot.Snapshot, args string) Fix {
	if !grubLegacy(s) {
		return AddKernelArgFix(args)
	}
	return Fix{Runtime: []string{}, Persistent: []string{
		"grubby --update-kernel=ALL --args=" + sh(args) + "   (RHEL 6 and later)",
		"/boot/grub/grub.conf (GRUB legacy, RHEL 6): append " + args + " to each kernel line",
	}}
}

// THPDir is the THP directory the snapshot's values were read from:
// RHEL 6 names it redhat_transparent_hugepage.
func THPDir(s *snapshot.Snapshot) string {
	if s.Memory.THP.Dir != "" {
		return s.Memory.THP.Dir
	}
	return "/sys/kernel/mm/transparent_hugepage"
}
