package artifacts

import (
	"strings"
	"testing"
)

func TestParseCgconfig(t *testing.T) {
	b := readTestdata(t, "cgconfig.conf")
	if k := Recognize(b); k != KindCgconfig {
		t.Fatalf("Recognize = %q", k)
	}
	s := &Set{}
	noErrors(t, s.Add("cgconfig.conf", b))
	if len(s.Cgconfigs) != 1 {
		t.Fatalf("cgconfigs = %+v", s.Cgconfigs)
	}
	got := map[string]string{}
	for _, e := range s.Cgconfigs[0].Entries {
		if e.File != "cgconfig.conf" || e.Group != "oracle" {
			t.Errorf("entry %+v", e)
		}
		got[e.Key] = e.Value
	}
	if got["cpuset.mems"] != "2,3" || got["cpuset.cpus"] != "21-30,61-70,31-40,71-80" {
		t.Errorf("entries = %v", got)
	}
	_, errs := ParseCgconfig([]byte("group oracle {\n cpuset {\n cpuset.cpus = 1\n"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "line ") {
		t.Errorf("errors = %v", errs)
	}
}
