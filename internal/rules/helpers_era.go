package rules

import (
	"github.com/dbhost/dbhost/internal/change"
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

// IfcfgEdits are the edits of an interface's ifcfg file (RHEL family's
// network-scripts, RHEL 6 to 8; a distribution not known is shown it too):
// "set KEY=value" each. On other distributions nil: their network
// configuration (netplan, /etc/network/interfaces, wicked) is not ifcfg's.
func IfcfgEdits(s *snapshot.Snapshot, ifname string, sets ...string) []FileEdit {
	h := s.Host
	if debianFamily(h) || suseFamily(h) {
		return nil
	}
	var out []FileEdit
	for _, set := range sets {
		out = append(out, FileEdit{File: "/etc/sysconfig/network-scripts/ifcfg-" + ifname, Edit: "set " + set})
	}
	return out
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

// KernelArgFixFor is AddKernelArgFix.
func KernelArgFixFor(s *snapshot.Snapshot, args string) Fix { return AddKernelArgFix(s, args) }

// kernelArgFix adds (or removes) boot arguments the way host s's
// distribution does: grubby on the Red Hat family (RHEL 6 onwards, Fedora,
// Amazon Linux), which edits every installed kernel's entry; on Debian and
// Ubuntu an edit of GRUB_CMDLINE_LINUX in /etc/default/grub, then
// update-grub; on SUSE the same edit, then grub2-mkconfig; GRUB legacy
// (2.6.x kernels) also /boot/grub/grub.conf's kernel lines. A distribution
// not known gets grubby and the /etc/default/grub edit, each named with
// where it applies.
func kernelArgFix(s *snapshot.Snapshot, args string, remove bool) Fix {
	grubby, edit := change.Grubby(args, remove), change.GrubDefaultEdit(args, remove)
	legacy := "add " + args + " to each kernel line"
	if remove {
		legacy = "remove " + args + "=... from each kernel line"
	}
	fix := Fix{Runtime: []string{}, Persistent: []string{}}
	switch BootLoader(s) {
	case BootGrubby:
		fix.Persistent = []string{grubby}
		if grubLegacy(s) {
			fix.Persistent[0] += "   (it edits /boot/grub/grub.conf)"
		}
		return fix
	case BootUpdateGrub:
		fix.Edits = []FileEdit{{File: "/etc/default/grub", Edit: edit, Then: "update-grub"}}
		return fix
	case BootGrub2Mkconfig:
		fix.Edits = []FileEdit{{File: "/etc/default/grub", Edit: edit, Then: change.Grub2Mkconfig}}
		return fix
	}
	switch {
	case suseFamily(s.Host): // SLES 11: GRUB legacy, /boot/grub/menu.lst
		fix.Edits = []FileEdit{{File: "/boot/grub/menu.lst", Edit: legacy}}
	case grubLegacy(s):
		fix.Persistent = []string{grubby + "   (Red Hat family)"}
		fix.Edits = []FileEdit{{File: "/boot/grub/grub.conf", Edit: legacy}}
	default:
		fix.Persistent = []string{grubby + "   (Red Hat family: RHEL, Oracle Linux, CentOS, Fedora)"}
		fix.Edits = []FileEdit{{File: "/etc/default/grub", Edit: edit,
			Then: "update-grub (Debian, Ubuntu) or grub2-mkconfig -o /boot/grub2/grub.cfg (SUSE)"}}
	}
	return fix
}

// Boot loader tools: how a distribution makes a boot argument persistent.
const (
	BootGrubby        = "grubby"         // Red Hat family: grubby edits every kernel's entry
	BootUpdateGrub    = "update-grub"    // Debian, Ubuntu: /etc/default/grub, then update-grub
	BootGrub2Mkconfig = "grub2-mkconfig" // SUSE: /etc/default/grub, then grub2-mkconfig
)

// BootLoaders are the values BootLoader returns ("" when not known).
var BootLoaders = []string{BootGrubby, BootUpdateGrub, BootGrub2Mkconfig}

// BootLoader is how host s's distribution makes a boot argument persistent
// (kernelArgFix, the plan's boot-args.txt): "" when the distribution is not
// known, or is SUSE's GRUB legacy (SLES 11), which neither tool serves.
func BootLoader(s *snapshot.Snapshot) string {
	h := s.Host
	switch {
	case rhelFamily(h) || h.OSID == "fedora" || h.OSID == "amzn":
		return BootGrubby
	case debianFamily(h):
		return BootUpdateGrub
	case suseFamily(h) && !grubLegacy(s):
		return BootGrub2Mkconfig
	}
	return ""
}

// debianFamily reports Debian, Ubuntu and their derivatives (update-grub, apt).
func debianFamily(h snapshot.Host) bool {
	switch h.OSID {
	case "debian", "ubuntu", "linuxmint", "raspbian", "pop":
		return true
	}
	return false
}

// suseFamily reports SLES and openSUSE.
func suseFamily(h snapshot.Host) bool {
	switch h.OSID {
	case "sles", "sled", "opensuse", "opensuse-leap", "opensuse-tumbleweed":
		return true
	}
	return false
}

// THPDir is the THP directory the snapshot's values were read from:
// RHEL 6 names it redhat_transparent_hugepage.
func THPDir(s *snapshot.Snapshot) string {
	if s.Memory.THP.Dir != "" {
		return s.Memory.THP.Dir
	}
	return "/sys/kernel/mm/transparent_hugepage"
}
