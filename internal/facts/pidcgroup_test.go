package facts

import (
	"strings"
	"testing"
)

func TestParsePIDCgroup(t *testing.T) {
	cg, err := ParsePIDCgroup(strings.NewReader("9:name=systemd:/\n3:cpuset:/db/ora:cle\n1:cpu,cpuacct:/cpu\n0::/user.slice\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cg.cpusetPath() != "/db/ora:cle" || cg.V1["cpuacct"] != "/cpu" || cg.V1["name=systemd"] != "/" || cg.V2 != "/user.slice" || !cg.HasV2 {
		t.Errorf("got %+v", cg)
	}
	cg, err = ParsePIDCgroup(strings.NewReader("0::/system.slice/postgresql.service\n"))
	if err != nil || cg.cpusetPath() != "/system.slice/postgresql.service" {
		t.Errorf("v2: %+v %v", cg, err)
	}
	for _, bad := range []string{"garbage\n", "x:cpuset:/\n", "3:cpuset:relative\n"} {
		if _, err := ParsePIDCgroup(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParsePIDCgroup(f *testing.F) {
	f.Add([]byte("3:cpuset:/db\n0::/x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cg, err := ParsePIDCgroup(strings.NewReader(string(b)))
		if err == nil && cg.cpusetPath() != "" && !strings.HasPrefix(cg.cpusetPath(), "/") {
			t.Fatalf("path %q", cg.cpusetPath())
		}
	})
}
