package facts

import (
	"strings"
	"testing"
)

func TestParseUname(t *testing.T) {
	for in, want := range map[string][3]string{
		"Linux db1 5.14.0-362.el9.x86_64 #1 SMP PREEMPT_DYNAMIC Tue Oct 3 11:12:36 EDT 2023 x86_64 x86_64 x86_64 GNU/Linux\n": {"db1", "5.14.0-362.el9.x86_64", "x86_64"},
		"Linux pg2 6.1.0-13-arm64 #1 SMP Debian 6.1.55-1 (2023-09-29) aarch64 GNU/Linux":                                      {"pg2", "6.1.0-13-arm64", "aarch64"},
		"Linux h 4.18.0":                        {"h", "4.18.0", ""},
		"Linux h 4.18.0 #1 SMP weird GNU/Linux": {"h", "4.18.0", ""},
	} {
		n, r, m, err := parseUname(in)
		if err != nil || [3]string{n, r, m} != want {
			t.Errorf("parseUname(%q) = %q %q %q, %v; want %q", in, n, r, m, err, want)
		}
	}
	if _, _, _, err := parseUname("Linux db1\n"); err == nil {
		t.Error("parseUname accepted a line without a release")
	}
}

// Without a hostname file or sysctl -a, uname -a's node name stands in.
func TestSosHostnameFromUname(t *testing.T) {
	d := t.TempDir()
	sosWriteTree(t, d, map[string]string{"sos_commands/kernel/uname_-a": "Linux db7 6.1.0 #1 SMP x86_64 GNU/Linux\n"})
	s := Collect(Root{Dir: d, Sos: true}, Options{Now: sosNow})
	if s.Host.Hostname != "db7" || s.Host.Kernel != "6.1.0" || len(sosAbsent(s, "host.hostname")) != 0 {
		t.Errorf("host = %+v, absences %+v", s.Host, sosAbsent(s, "host.hostname"))
	}
}

func FuzzParseUname(f *testing.F) {
	f.Add("Linux db1 5.14.0-362.el9.x86_64 #1 SMP PREEMPT_DYNAMIC Tue Oct 3 11:12:36 EDT 2023 x86_64 x86_64 x86_64 GNU/Linux\n")
	f.Add("Linux h 4.18.0")
	f.Fuzz(func(t *testing.T, s string) {
		node, rel, _, err := parseUname(s)
		if err == nil && (node == "" || rel == "" || strings.ContainsAny(node+rel, " \t\n")) {
			t.Fatalf("parseUname(%q) = %q, %q", s, node, rel)
		}
	})
}
