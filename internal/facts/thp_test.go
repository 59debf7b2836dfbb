package facts

import (
	"strings"
	"testing"
)

func TestParseTHP(t *testing.T) {
	for in, want := range map[string]string{"always [madvise] never": "madvise", "[always] madvise never\n": "always", "[never]": "never"} {
		if sel, _, err := parseTHPChoice(in); err != nil || sel != want {
			t.Errorf("parseTHPChoice(%q) = %q, %v", in, sel, err)
		}
	}
	for _, in := range []string{"", "always madvise never", "[always] [never]", "[] a", "[a", "a]", "[a[b]"} {
		if sel, _, err := parseTHPChoice(in); err == nil {
			t.Errorf("parseTHPChoice(%q) = %q, want error", in, sel)
		}
	}
	for in, want := range map[string]int64{"0": 0, "1\n": 1, "[yes] no": 1, "yes [no]": 0} {
		if v, err := parseTHPFlag(in); err != nil || v != want {
			t.Errorf("parseTHPFlag(%q) = %d, %v", in, v, err)
		}
	}
	for _, in := range []string{"", "2", "[no] yes", "yes no", "[maybe] no"} {
		if _, err := parseTHPFlag(in); err == nil {
			t.Errorf("parseTHPFlag(%q) accepted", in)
		}
	}
}

func FuzzParseTHPChoice(f *testing.F) {
	f.Add("always [madvise] never")
	f.Add("yes [no]")
	f.Fuzz(func(t *testing.T, s string) {
		sel, all, err := parseTHPChoice(s)
		if err != nil {
			if sel != "" || all != nil {
				t.Fatalf("error with values %q %v", sel, all)
			}
			return
		}
		found := false
		for _, w := range all {
			if w == "" || strings.ContainsAny(w, "[] \t\n") {
				t.Fatalf("bad option %q", w)
			}
			found = found || w == sel
		}
		if !found {
			t.Fatalf("selected %q not among %v", sel, all)
		}
		if v, err := parseTHPFlag(s); err == nil && v != 0 && v != 1 {
			t.Fatalf("flag %d", v)
		}
	})
}
