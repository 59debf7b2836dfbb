package facts

import (
	"fmt"
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

// FuzzParseUname: `uname -a` as sosreport keeps it, with the node name and
// release the fuzzer chose (one word each), gives them back, and the machine
// when it is a known one before "GNU/Linux"; fewer than three words fail.
func FuzzParseUname(f *testing.F) {
	f.Add("Linux db1 5.14.0-362.el9.x86_64 #1 SMP PREEMPT_DYNAMIC Tue Oct 3 11:12:36 EDT 2023 x86_64 x86_64 x86_64 GNU/Linux\n", "db1", "5.14.0-362.el9.x86_64", "x86_64")
	f.Add("Linux h 4.18.0", "h", "4.18.0", "")
	f.Fuzz(func(t *testing.T, s, node, release, machine string) {
		if n, r, _, err := parseUname(s); err == nil && (n == "" || r == "" || strings.ContainsAny(n+r, " \t\n")) {
			t.Fatalf("parseUname(%q) = %q, %q", s, n, r)
		}
		node, release = firstWord(node, "db1"), firstWord(release, "6.1.0-56-amd64")
		machine = firstWord(machine, "")
		want := ""
		if unameMachines[machine] {
			want = machine
		}
		for _, text := range []string{
			fmt.Sprintf("Linux %s %s #1 SMP PREEMPT_DYNAMIC Debian 6.1.153-1 (2025-09-20) %s %s %s GNU/Linux\n", node, release, machine, machine, machine),
			fmt.Sprintf("\r\n Linux\t%s  %s #1 SMP %s GNU/Linux\r\nsecond line\n", node, release, machine),
		} {
			n, r, m, err := parseUname(text)
			if machine == "" {
				want = "" // "... SMP GNU/Linux": no machine word
			}
			if err != nil || n != node || r != release || m != want {
				t.Fatalf("parseUname(%q) = %q %q %q %v, want %q %q %q", text, n, r, m, err, node, release, want)
			}
		}
		if n, r, _, err := parseUname("Linux " + node + "\n" + release); err == nil {
			t.Fatalf("two words on the first line accepted: %q %q", n, r)
		}
	})
}

// firstWord is the first blank-separated word of s, or def.
func firstWord(s, def string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return def
}
