package cpulist

import (
	"fmt"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		bad  bool
	}{
		{"", []int{}, false},
		{"0", []int{0}, false},
		{"0-3", []int{0, 1, 2, 3}, false},
		{"0-1,8,10-11\n", []int{0, 1, 8, 10, 11}, false},
		{"4,0,15", []int{0, 4, 15}, false}, // node 4 holding CPU 0 and 15 prints sorted, but accept any order
		{"1,1,0-1", []int{0, 1}, false},
		{"3-1", nil, true},
		{"a", nil, true},
		{"0,,1", nil, true},
		{"-1", nil, true},
		{"0-99999999", nil, true},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if (err != nil) != c.bad {
			t.Errorf("Parse(%q) err=%v, want bad=%v", c.in, err, c.bad)
			continue
		}
		if !c.bad && !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestParseMask(t *testing.T) {
	cases := map[string][]int{
		"3":                 {0, 1},
		"00000000,00000001": {0},
		"80000000,00000000": {63},
		"f0":                {4, 5, 6, 7},
		"":                  {},
	}
	for in, want := range cases {
		got, err := ParseMask(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseMask(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"xyz", "123456789", "1,,2"} {
		if _, err := ParseMask(bad); err == nil {
			t.Errorf("ParseMask(%q) accepted", bad)
		}
	}
}

func TestFormat(t *testing.T) {
	cases := map[string][]int{
		"":            nil,
		"0":           {0},
		"0-3":         {3, 2, 1, 0},
		"0,4,8,12":    {0, 4, 8, 12},
		"0-1,8,10-11": {0, 1, 8, 10, 11},
	}
	for want, in := range cases {
		if got := Format(in); got != want {
			t.Errorf("Format(%v) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParse checks that Parse never panics and that Format∘Parse is a fixed point.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0-3", "0,4,8", "", "1-0", "0-65536", "7,3-5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(Format(ids))
		if err != nil || !reflect.DeepEqual(back, ids) {
			t.Fatalf("round trip of %q: %v → %q → %v (%v)", s, ids, Format(ids), back, err)
		}
	})
}

func FuzzParseMask(f *testing.F) {
	for _, s := range []string{"ff", "00000000,00000001", "", "zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := ParseMask(s)
		if err != nil {
			return
		}
		for i := 1; i < len(ids); i++ {
			if ids[i] <= ids[i-1] {
				t.Fatalf("ParseMask(%q) not sorted/unique: %v", s, ids)
			}
		}
	})
}

// FuzzMaskRoundTrip checks the mask parser against the list parser: a list
// the fuzzer chose, printed as the kernel prints a mask of any width (and
// with the "\n\x00" end some kernels leave), parses back to the same ids;
// and a mask that parses prints as a list that parses to the same ids.
func FuzzMaskRoundTrip(f *testing.F) {
	f.Add("0-7,16-23", 64, true)
	f.Add("0-5,16-21", 32, false)
	f.Add("31-33", 40, false)
	f.Add("", 8, true)
	f.Add("1023", 1024, false)
	f.Fuzz(func(t *testing.T, list string, nbits int, nul bool) {
		ids, err := Parse(list)
		if err != nil || nbits <= 0 || nbits > 8192 {
			return
		}
		var in []int
		for _, id := range ids {
			if id < nbits {
				in = append(in, id)
			}
		}
		m := FormatMask(in, nbits)
		if nul {
			m += "\n\x00"
		}
		got, err := ParseMask(m)
		if err != nil {
			t.Fatalf("ParseMask(%q) of list %q: %v", m, list, err)
		}
		if len(in) == 0 {
			in = []int{}
		}
		if !reflect.DeepEqual(got, in) {
			t.Fatalf("list %q as a %d-bit mask %q parses to %v, want %v", list, nbits, m, got, in)
		}
		back, err := Parse(Format(got) + "\n\x00")
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("mask %q → %v → list %q → %v (%v)", m, got, Format(got), back, err)
		}
	})
}

func TestTrailingNUL(t *testing.T) {
	for in, want := range map[string]string{"0-7,16-23\n\x00": "0-7,16-23", "\x00": "", "3\x00\x00": "3"} {
		ids, err := Parse(in)
		if err != nil || Format(ids) != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, ids, err, want)
		}
	}
	ids, err := ParseMask("00000000,003f0000,0000003f\n\x00")
	if err != nil || Format(ids) != "0-5,48-53" {
		t.Errorf("ParseMask = %v, %v", ids, err)
	}
	if m := FormatMask([]int{0, 1, 2, 3, 4, 5, 48, 49, 50, 51, 52, 53}, 96); m != "00000000,003f0000,0000003f" {
		t.Errorf("FormatMask = %q", m)
	}
	if m := FormatMask([]int{0, 1}, 2); m != "3" {
		t.Errorf("FormatMask 2 bits = %q", m)
	}
}

func TestPerCPUPath(t *testing.T) {
	cases := []struct {
		in   string
		cpu  int
		pat  string
		isOK bool
	}{
		{"/sys/devices/system/cpu/cpu12/cpufreq/scaling_governor", 12, "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor", true},
		{"/sys/devices/system/cpu/cpu0", 0, "/sys/devices/system/cpu/cpu*", true},
		{"/sys/devices/system/cpu/cpufreq/policy0/scaling_governor", 0, "", false},
		{"/sys/devices/system/cpu/cpu1x/online", 0, "", false},
		{"/sys/devices/system/cpu/cpu/online", 0, "", false},
		{"vm.swappiness", 0, "", false},
	}
	for _, c := range cases {
		cpu, pat, ok := PerCPUPath(c.in)
		if ok != c.isOK || (ok && (cpu != c.cpu || pat != c.pat)) {
			t.Errorf("PerCPUPath(%q) = %d %q %v", c.in, cpu, pat, ok)
		}
	}
}

func TestGroupPerCPU(t *testing.T) {
	paths := []string{"a", "/sys/devices/system/cpu/cpu0/x", "/sys/devices/system/cpu/cpu0/y", "/sys/devices/system/cpu/cpu1/x",
		"/sys/devices/system/cpu/cpu1/y", "/sys/devices/system/cpu/cpu2/x", "b"}
	vals := []string{"1", "v", "w", "v", "w", "other", "1"}
	g := GroupPerCPU(len(paths), func(i int) string { return paths[i] }, func(i int) string { return vals[i] })
	want := "[[0] [1 3] [2 4] [5] [6]]"
	if got := fmt.Sprint(g); got != want {
		t.Fatalf("groups %s, want %s", got, want)
	}
	if l := GroupLabel([]string{paths[1], paths[3]}); l != "/sys/devices/system/cpu/cpu*/x (2 CPUs: 0-1)" {
		t.Errorf("label %q", l)
	}
	if l := GroupLabel([]string{"a"}); l != "a" {
		t.Errorf("label %q", l)
	}
}
