package change

import "strings"

// Boot argument wording shared by the rules (the fix text) and apply (the
// pending command): a boot argument is made persistent the way the host's
// distribution does it (issue 26 item 10). grubby exists on the Red Hat
// family only; Debian and Ubuntu edit GRUB_CMDLINE_LINUX in
// /etc/default/grub then run update-grub; SUSE the same edit then
// grub2-mkconfig.

// BootArgFamily is the family of an /etc/os-release ID (and ID_LIKE):
// "redhat", "debian", "suse" or "" when not known.
func BootArgFamily(id, idLike string) string {
	for _, w := range append([]string{id}, strings.Fields(idLike)...) {
		switch strings.Trim(w, `"'`) {
		case "rhel", "centos", "ol", "scientific", "oracle", "rocky", "almalinux", "circle", "fedora", "amzn":
			return "redhat"
		case "debian", "ubuntu", "linuxmint", "raspbian", "pop":
			return "debian"
		case "sles", "sled", "suse", "opensuse", "opensuse-leap", "opensuse-tumbleweed":
			return "suse"
		}
	}
	return ""
}

// Grubby is the Red Hat family's command adding (or removing) arg.
func Grubby(arg string, remove bool) string {
	if remove {
		return "grubby --update-kernel=ALL --remove-args=" + Quote(arg)
	}
	return "grubby --update-kernel=ALL --args=" + Quote(arg)
}

// GrubDefaultEdit is the edit of /etc/default/grub adding (or removing) arg.
func GrubDefaultEdit(arg string, remove bool) string {
	if remove {
		return "remove " + arg + "=... from GRUB_CMDLINE_LINUX"
	}
	return "add " + arg + " to GRUB_CMDLINE_LINUX"
}

// Grub2Mkconfig is SUSE's command regenerating grub.cfg.
const Grub2Mkconfig = "grub2-mkconfig -o /boot/grub2/grub.cfg"

// BootArgCommand is the one line a person runs (or does) on a host of the
// family to add or remove arg from the boot command line; an unknown family
// gets both ways, each labelled with where it applies.
func BootArgCommand(family, arg string, remove bool) string {
	edit := "edit /etc/default/grub: " + GrubDefaultEdit(arg, remove)
	switch family {
	case "redhat":
		return Grubby(arg, remove)
	case "debian":
		return edit + ", then run update-grub"
	case "suse":
		return edit + ", then run " + Grub2Mkconfig
	}
	return Grubby(arg, remove) + "   (Red Hat family: RHEL, Oracle Linux, CentOS, Fedora); or " + edit +
		", then run update-grub (Debian, Ubuntu) or " + Grub2Mkconfig + " (SUSE)"
}

// OSRelease reads ID and ID_LIKE from /etc/os-release's text.
func OSRelease(text string) (id, idLike string) {
	for _, l := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"'`)
		switch k {
		case "ID":
			id = v
		case "ID_LIKE":
			idLike = v
		}
	}
	return id, idLike
}
