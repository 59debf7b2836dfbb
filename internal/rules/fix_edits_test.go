package rules

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Issue 26, item 10: a fix line is a command that runs on the host, or
// plainly a file edit. Boot arguments: grubby on the Red Hat family,
// /etc/default/grub + update-grub on Debian and Ubuntu, /etc/default/grub +
// grub2-mkconfig on SUSE.
func TestKernelArgFixPerDistribution(t *testing.T) {
	for _, c := range []struct {
		id, ver, kernel string
		cmd             string // the persistent command, "" for none
		edit            string // the edit as rendered, "" for none
	}{
		{"rhel", "9.4", "5.14.0-427.el9.x86_64", "grubby --update-kernel=ALL --args=numa_balancing=disable", ""},
		{"ol", "8.10", "5.15.0-210.el8uek.x86_64", "grubby --update-kernel=ALL --args=numa_balancing=disable", ""},
		{"rhel", "6.5", "2.6.32-431.el6.x86_64", "grubby --update-kernel=ALL --args=numa_balancing=disable   (it edits /boot/grub/grub.conf)", ""},
		{"ubuntu", "22.04", "5.15.0-119-generic", "", "edit /etc/default/grub: add numa_balancing=disable to GRUB_CMDLINE_LINUX, then run update-grub"},
		{"debian", "12", "6.1.0-26-amd64", "", "edit /etc/default/grub: add numa_balancing=disable to GRUB_CMDLINE_LINUX, then run update-grub"},
		{"sles", "12.2", "4.4.21-69-default", "", "edit /etc/default/grub: add numa_balancing=disable to GRUB_CMDLINE_LINUX, then run grub2-mkconfig -o /boot/grub2/grub.cfg"},
	} {
		s := host()
		s.Host.OSID, s.Host.OSVersionID, s.Host.Kernel = c.id, c.ver, c.kernel
		f := AddKernelArgFix(s, "numa_balancing=disable")
		got := strings.Join(f.Lines(), "\n")
		if c.cmd != "" && (len(f.Persistent) != 1 || f.Persistent[0] != c.cmd) {
			t.Errorf("%s %s: persistent %q, want %q", c.id, c.ver, f.Persistent, c.cmd)
		}
		if c.cmd == "" && strings.Contains(got, "grubby") {
			t.Errorf("%s %s: grubby offered where it does not exist: %q", c.id, c.ver, got)
		}
		if c.edit != "" && (len(f.Edits) != 1 || f.Edits[0].String() != c.edit || len(f.Persistent) != 0) {
			t.Errorf("%s %s: %q, want the edit %q", c.id, c.ver, got, c.edit)
		}
		if c.edit == "" && len(f.Edits) != 0 {
			t.Errorf("%s %s: edits %q", c.id, c.ver, f.Edits)
		}
	}
	s := host()
	s.Host.OSID, s.Host.OSVersionID = "ubuntu", "22.04"
	if got := strings.Join(RemoveKernelArgFix(s, "numa").Lines(), "\n"); got != "edit /etc/default/grub: remove numa=... from GRUB_CMDLINE_LINUX, then run update-grub" {
		t.Errorf("ubuntu remove: %q", got)
	}
}

// fileLine is a persistent line that names a file and what to put in it
// ("/etc/sysctl.d/90-dbhost.conf: kernel.numa_balancing = 0"): a file edit
// offered where a command is expected.
var fileLine = regexp.MustCompile(`^/(etc|boot)/[^ :]+: `)

// On every era fixture and workload, sysctl.d, grub and ifcfg lines are
// edits, never Persistent commands; Debian/Ubuntu and SUSE are offered no
// grubby, the Red Hat family no update-grub.
func TestFixLinesAreCommandsOrEdits(t *testing.T) {
	for _, name := range eraFixtures {
		for _, w := range []string{WorkloadOLTP, WorkloadDSS, WorkloadLatency} {
			s, rep := auditFixture(t, name, w)
			for _, f := range rep.Findings {
				for _, l := range f.Fix.Persistent {
					if fileLine.MatchString(l) && (strings.HasPrefix(l, SysctlDropIn) || strings.HasPrefix(l, "/etc/default/grub") ||
						strings.HasPrefix(l, "/etc/sysconfig/network-scripts/")) {
						t.Errorf("%s %s %s: a file line offered as a command: %q", name, w, f.ID, l)
					}
				}
				// A boot argument the finding changes is made persistent.
				for _, c := range f.Changes {
					if c.Kind == "bootarg" && len(f.Fix.Lines()) == 0 {
						t.Errorf("%s %s %s: boot argument %s with no persistent step", name, w, f.ID, c.Key)
					}
				}
				if f.ID == "cpu.deep-cstates-latency" || f.ID == "memory.thp-enabled" {
					lines := strings.Join(f.Fix.Lines(), "\n")
					if !strings.Contains(lines, "grubby") && !strings.Contains(lines, "GRUB_CMDLINE_LINUX") && !strings.Contains(lines, "grub.conf") && !strings.Contains(lines, "menu.lst") {
						t.Errorf("%s %s %s: the boot argument is not persisted: %q", name, w, f.ID, lines)
					}
				}
				all := strings.Join(append(f.Fix.Runtime, f.Fix.Lines()...), "\n")
				switch {
				case debianFamily(s.Host) || suseFamily(s.Host):
					if strings.Contains(all, "grubby") {
						t.Errorf("%s %s %s: grubby on %s: %q", name, w, f.ID, s.Host.OSID, all)
					}
				case rhelFamily(s.Host):
					if strings.Contains(all, "update-grub") || strings.Contains(all, "/etc/default/grub") {
						t.Errorf("%s %s %s: Debian's grub edit on %s: %q", name, w, f.ID, s.Host.OSID, all)
					}
				}
			}
		}
	}
}

// fileLineForms are the forms of a line of a file offered as a command: a
// path and what to put in it ("/etc/fstab: add noatime ..."), a udev rule, an
// fstab entry, a bare KEY=VALUE or sysctl line.
var fileLineForms = []*regexp.Regexp{
	regexp.MustCompile(`^(#\s*RISKY:?\s*)?(~|/)[^ :]*: `),
	regexp.MustCompile(`ACTION==`),
	regexp.MustCompile(`^/dev/\S+\s+/\S*\s+\S+\s+\S+(\s+\d+\s+\d+)?$`),
	regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*\s*=\s*\S+$`),
}

// Issue 26, item 10: on every fixture host and workload, every Runtime and
// Persistent line is a command (or prose), never a line of a file: udev
// rules, multipath.conf, fstab, cgconfig.conf, /etc/environment, limits.d and
// /etc/tunables/nextboot lines are Edits.
func TestNoFileLineIsOfferedAsACommand(t *testing.T) {
	hosts, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*.json"))
	if err != nil || len(hosts) == 0 {
		t.Fatalf("fixture snapshots: %v %d", err, len(hosts))
	}
	for _, h := range hosts {
		name := strings.TrimSuffix(filepath.Base(h), ".json")
		for _, w := range []string{WorkloadOLTP, WorkloadDSS, WorkloadLatency} {
			_, rep := auditFixture(t, name, w)
			for _, f := range rep.Findings {
				for _, l := range append(append([]string{}, f.Fix.Runtime...), f.Fix.Persistent...) {
					for _, re := range fileLineForms {
						if re.MatchString(l) {
							t.Errorf("%s %s %s: a file line offered as a command (%s): %q", name, w, f.ID, re, l)
							break
						}
					}
				}
			}
		}
	}
}
