package facts

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSysctlConf(t *testing.T) {
	in := `# comment
; also a comment
vm.swappiness = 10
kernel.shmmax=68719476736
-net.core.busy_poll = 50
net/ipv4/conf/eth0.100/rp_filter = 2
net.ipv4.ip_local_port_range = 9000    65500
this line is wrong
 = 5
vm.empty =
`
	got, errs := parseSysctlConf(strings.NewReader(in))
	want := []sysctlLine{
		{Line: 3, Key: "vm.swappiness", Value: "10"},
		{Line: 4, Key: "kernel.shmmax", Value: "68719476736"},
		{Line: 5, Key: "net.core.busy_poll", Value: "50", IgnoreError: true},
		{Line: 6, Key: "net.ipv4.conf.eth0/100.rp_filter", Value: "2"},
		{Line: 7, Key: "net.ipv4.ip_local_port_range", Value: "9000    65500"},
		{Line: 10, Key: "vm.empty", Value: ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines:\n got %+v\nwant %+v", got, want)
	}
	if len(errs) != 2 || errs[0].(*ParseError).Line != 8 || errs[1].(*ParseError).Line != 9 {
		t.Errorf("errors = %v, want lines 8 and 9", errs)
	}
}

func TestSysctlDotted(t *testing.T) {
	for in, want := range map[string]string{
		"vm.swappiness":                    "vm.swappiness",
		"vm/swappiness":                    "vm.swappiness",
		"/proc/sys/vm/x":                   "proc.sys.vm.x",
		"net.ipv4.conf.eth0/100.rp_filter": "net.ipv4.conf.eth0/100.rp_filter",
		"net/ipv4/conf/eth0.100/rp_filter": "net.ipv4.conf.eth0/100.rp_filter",
		"kernel":                           "kernel",
	} {
		if got := sysctlDotted(in); got != want {
			t.Errorf("sysctlDotted(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseSysctlConf(f *testing.F) {
	f.Add([]byte("vm.swappiness = 10\n-net/core/x=1\n; c\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lines, _ := parseSysctlConf(strings.NewReader(string(b)))
		for _, l := range lines {
			if l.Key == "" || l.Line < 1 || strings.ContainsAny(l.Key, " \t=") {
				t.Fatalf("bad line %+v", l)
			}
			if sysctlDotted(l.Key) != l.Key {
				t.Fatalf("key %q not normalized", l.Key)
			}
		}
	})
}
