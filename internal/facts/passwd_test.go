package facts

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePasswd(t *testing.T) {
	in := "root:x:0:0:root:/root:/bin/bash\n+nisuser::::::\noracle:x:54321:54321::/home/oracle:/bin/bash\nbroken\npostgres:x:abc:1::/:\n# c\noracle:x:1:1::/:\n"
	u, n, bad := parsePasswd(strings.NewReader(in))
	if !reflect.DeepEqual(u, map[string]int{"root": 0, "oracle": 54321}) || bad != 3 {
		t.Errorf("got %v bad=%d", u, bad)
	}
	if !reflect.DeepEqual(n, map[int]string{0: "root", 54321: "oracle", 1: "oracle"}) {
		t.Errorf("by uid: %v", n)
	}
}

func FuzzParsePasswd(f *testing.F) {
	f.Add([]byte("root:x:0:0::/:\noracle:x:54321:1::/:\n"))
	f.Add([]byte(passwdA))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, names, _ := parsePasswd(strings.NewReader(string(b)))
		for n, uid := range u {
			if n == "" || uid < 0 || names[uid] == "" {
				t.Fatalf("bad user %q %d", n, uid)
			}
		}
		for uid, name := range names {
			if uid < 0 || name == "" || strings.Contains(name, ":") {
				t.Fatalf("bad entry %d → %q", uid, name)
			}
		}
	})
}
