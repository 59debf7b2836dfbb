package facts

import (
	"strings"
	"testing"
)

func TestParseCmdline(t *testing.T) {
	got := parseCmdline(`BOOT_IMAGE=/vmlinuz-5.14 root=/dev/mapper/rhel-root ro numa=off transparent-hugepage=never intel_idle.max_cstate=1 dyndbg="file x.c +p" quiet -- --init-arg numa=on`)
	want := map[string]string{"BOOT_IMAGE": "/vmlinuz-5.14", "root": "/dev/mapper/rhel-root", "ro": "", "numa": "off",
		"transparent_hugepage": "never", "intel_idle.max_cstate": "1", "dyndbg": "file x.c +p", "quiet": ""}
	if len(got) != len(want) {
		t.Errorf("got %d args %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func FuzzParseCmdline(f *testing.F) {
	for _, s := range []string{"ro numa=off", `a="b c" -- d`, `"`, "==", "x=1 x=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for k := range parseCmdline(s) {
			// Quotes group words (the kernel allows "a b"=c) but never stay in a key.
			if strings.Contains(k, `"`) {
				t.Fatalf("key %q kept a quote (input %q)", k, s)
			}
		}
	})
}
