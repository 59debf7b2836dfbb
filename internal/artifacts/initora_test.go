package artifacts

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"testing"
)

func TestParseInitPfile(t *testing.T) {
	b := readTestdata(t, "initORCL.ora")
	if k := Recognize(b); k != KindInit {
		t.Fatalf("Recognize = %q", k)
	}
	p, errs := ParseInit(b)
	noErrors(t, errs)
	if p.Spfile || len(p.Skipped) != 0 {
		t.Errorf("pfile seen as spfile: %v %v", p.Spfile, p.Skipped)
	}
	want := map[[2]string]string{
		{"*", "db_name"}:                         "BDT12c1",
		{"*", "DB_BLOCK_SIZE"}:                   "8192",
		{"*", "sga_target"}:                      "24G",
		{"*", "use_large_pages"}:                 "ONLY",
		{"*", "_enable_numa_support"}:            "TRUE",
		{"*", `"_enable_NUMA_support"`}:          "TRUE",
		{"*", "_enable_numa_interleave"}:         "TRUE",
		{"*", "control_files"}:                   "/u02/oradata/BDT12c1/control01.ctl,/u03/fra/BDT12c1/control02.ctl",
		{"*", "dispatchers"}:                     "(PROTOCOL=TCP) (SERVICE=BDT12c1XDB)",
		{"*", "log_archive_dest_1"}:              "LOCATION=USE_DB_RECOVERY_FILE_DEST VALID_FOR=(ALL_LOGFILES,ALL_ROLES)",
		{"*", "event"}:                           "10046 trace name context forever, level 12",
		{"*", "audit_file_dest"}:                 "/u01/app/oracle/admin/BDT12c1/adump",
		{"*", "utl_file_dir"}:                    "/tmp,/u01/app/oracle/utl",
		{"*", "nls_date_format"}:                 "DD-MON-YYYY 'HH24'",
		{"BDT12c1_1", "cpu_count"}:               "6",
		{"BDT12c1_2", "cpu_count"}:               "2",
		{"bdt12c1_2", "cpu_count"}:               "2",
		{"BDT12c1_1", "instance_number"}:         "1",
		{"BDT12c1_2", "instance_number"}:         "2",
		{"BDT12c1_1", "parallel_instance_group"}: "BDT_PREF",
	}
	for k, v := range want {
		got, ok := p.Get(k[0], k[1])
		if !ok || got != v {
			t.Errorf("Get(%q, %q) = %q, %v; want %q", k[0], k[1], got, ok, v)
		}
	}
	if _, ok := p.Get("BDT12c1_2", "parallel_instance_group"); ok {
		t.Error("parallel_instance_group is set only for BDT12c1_1")
	}
	if _, ok := p.Get("*", "instance_number"); ok {
		t.Error("instance_number has no * default")
	}
	if n, ok, err := p.GetBytes("BDT12c1_1", "sga_target"); !ok || err != nil || n != 24<<30 {
		t.Errorf("GetBytes sga_target = %d %v %v", n, ok, err)
	}
	if _, ok, err := p.GetBytes("*", "db_name"); !ok || err == nil {
		t.Error("GetBytes of a non-size must fail")
	}
	if v, ok := p.Bool("BDT12c1_1", "cluster_database"); !v || !ok {
		t.Error("cluster_database=true is a RAC database")
	}
	if _, ok := p.Bool("*", "db_name"); ok {
		t.Error("db_name is not a boolean")
	}
	if got := p.SIDs(); strings.Join(got, " ") != "BDT12c1_1 BDT12c1_2" {
		t.Errorf("SIDs = %v", got)
	}
	var cf InitParam
	for _, e := range p.Entries {
		if e.Name == "control_files" {
			cf = e
		}
	}
	if cf.Line != 14 || len(cf.Values) != 2 {
		t.Errorf("control_files entry = %+v", cf)
	}
}

func TestParseInitErrors(t *testing.T) {
	in := "processes=300\nthis is not a parameter\n*.sga_target=\nbad name=1\n*.x='unterminated\nfoo.bar.baz=1\n*.ok=1\n"
	p, errs := ParseInit([]byte(in))
	if len(errs) != 5 {
		t.Fatalf("errors = %v", errs)
	}
	for i, line := range []string{"line 2:", "line 3:", "line 4:", "line 5:", "line 6:"} {
		if !strings.Contains(errs[i].Error(), line) {
			t.Errorf("error %d = %v, want %s", i, errs[i], line)
		}
	}
	if v, _ := p.Get("", "processes"); v != "300" {
		t.Errorf("processes = %q", v)
	}
	// The unterminated quote does not swallow the next parameter lines.
	if v, _ := p.Get("", "ok"); v != "1" || len(p.Entries) != 2 {
		t.Errorf("entries = %+v", p.Entries)
	}
}

func TestParseSpfileStrings(t *testing.T) {
	b := readTestdata(t, "spfileORCL.strings")
	if k := Recognize(b); k != KindSpfile {
		t.Fatalf("Recognize = %q", k)
	}
	p, errs := ParseInit(b)
	noErrors(t, errs)
	if !p.Spfile || len(p.Skipped) != 2 || p.Skipped[0] != 1 || p.Skipped[1] != 16 {
		t.Errorf("spfile %v skipped %v", p.Spfile, p.Skipped)
	}
	if v, _ := p.Get("ORCL", "memory_target"); v != "2G" {
		t.Errorf("memory_target = %q", v)
	}
	if v, _ := p.Get("ORCL", "__oracle_base"); v != "/u01/app/oracle" {
		t.Errorf("__oracle_base = %q", v)
	}
	if v, _ := p.Get("", "__db_cache_size"); v != "" {
		t.Errorf("ORCL.__db_cache_size must not be a * default: %q", v)
	}
}

func TestParseSpfileBinary(t *testing.T) {
	b := readTestdata(t, "spfileBDT12c1.ora")
	if k := Recognize(b); k != KindSpfile {
		t.Fatalf("Recognize = %q", k)
	}
	p, errs := ParseInit(b)
	noErrors(t, errs)
	if v, _ := p.Get("BDT12c1_1", "control_files"); v != "/u02/oradata/BDT12c1/control01.ctl,/u03/fra/BDT12c1/control02.ctl" {
		t.Errorf("control_files across blocks = %q", v)
	}
	if v, _ := p.Get("BDT12c1_2", "instance_number"); v != "2" {
		t.Errorf("instance_number = %q", v)
	}
	if v, _ := p.Get("x", "use_large_pages"); v != "ONLY" {
		t.Errorf("use_large_pages = %q", v)
	}
}

func TestParseBytes(t *testing.T) {
	good := map[string]int64{"8192": 8192, "64K": 64 << 10, "1536M": 1536 << 20, "2104G": 2104 << 30, "2 GB": 2 << 30,
		"4100MB": 4100 << 20, "1t": 1 << 40, "'24G'": 24 << 30, "0": 0}
	for in, want := range good {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "-1G", "1.5G", "12X", "UNLIMITED", "9999999999P", "99999999999999999999"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		}
	}
}

func FuzzParseInit(f *testing.F) {
	f.Add([]byte("*.sga_target=24G\nORCL.cpu_count=2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, errs := ParseInit(b)
		if p == nil || p.BySID == nil {
			t.Fatal("nil result")
		}
		if len(errs) > maxErrors+1 {
			t.Fatalf("%d errors", len(errs))
		}
		// The last entry of each (SID, name) is what BySID holds.
		last := map[[2]string]string{}
		for _, e := range p.Entries {
			if e.Line < 1 || e.Name != strings.ToLower(e.Name) || e.Value != strings.Join(e.Values, ",") {
				t.Fatalf("entry %+v", e)
			}
			last[[2]string{e.SID, e.Name}] = e.Value
		}
		n := 0
		for sid, m := range p.BySID {
			for name, v := range m {
				n++
				if w, ok := last[[2]string{sid, name}]; !ok || w != v {
					t.Fatalf("BySID[%q][%q] = %q, last entry %q", sid, name, v, w)
				}
			}
		}
		if n != len(last) {
			t.Fatalf("BySID has %d settings, entries %d", n, len(last))
		}
	})
}

// FuzzParseBytes: a size as init.ora/spfile write it (digits, then no unit
// or K/M/G/T/P, any case, an optional B, blanks and quotes around), with the
// number the fuzzer chose, is that many bytes, computed apart in 128 bits;
// beyond int64 it is an error, never a wrapped value.
func FuzzParseBytes(f *testing.F) {
	f.Add("2104G", uint64(2104), uint8(3))
	f.Fuzz(func(t *testing.T, s string, n uint64, form uint8) {
		if v, err := ParseBytes(s); err == nil && v < 0 {
			t.Fatalf("ParseBytes(%q) = %d", s, v)
		}
		units := []string{"", "K", "M", "G", "T", "P"}
		u := int(form) % len(units)
		unit := units[u]
		if form&8 != 0 {
			unit = strings.ToLower(unit)
		}
		if form&16 != 0 && unit != "" {
			unit += "B"
		}
		text := strconv.FormatUint(n, 10) + unit
		if form&32 != 0 {
			if unit != "" {
				text = strings.TrimSuffix(text, unit) + " " + unit
			}
			text = " '" + text + "' "
		}
		hi, lo := bits.Mul64(n, 1<<(10*u))
		got, err := ParseBytes(text)
		if hi != 0 || lo > math.MaxInt64 {
			if err == nil {
				t.Fatalf("ParseBytes(%q) = %d, want out of range", text, got)
			}
			return
		}
		if err != nil || got != int64(lo) {
			t.Fatalf("ParseBytes(%q) = %d %v, want %d", text, got, err, lo)
		}
		if _, err := ParseBytes(text + "X"); err == nil && unit == "" {
			t.Fatalf("ParseBytes(%q) accepted an unknown unit", text+"X")
		}
	})
}
