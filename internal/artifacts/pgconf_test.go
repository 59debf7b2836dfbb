package artifacts

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"testing"
)

func TestParsePGConf(t *testing.T) {
	b := readTestdata(t, "pg/postgresql.conf")
	if k := Recognize(b); k != KindPGConf {
		t.Fatalf("Recognize = %q", k)
	}
	c, errs := ParsePGConf(b)
	noErrors(t, errs)
	want := map[string]string{
		"data_directory": "/var/lib/postgresql/16/main", "listen_addresses": "*", "port": "5432",
		"max_connections": "500", "shared_buffers": "128MB", "huge_pages": "try", "work_mem": "4MB",
		"wal_buffers": "-1", "log_line_prefix": "%m [%p] %q%u@%d ", "search_path": `"$user", public`,
		"application_name": "it's 'quoted'", "custom.setting": "on", "DYNAMIC_SHARED_MEMORY_TYPE": "posix",
	}
	for k, v := range want {
		if got, ok := c.Get(k); !ok || got != v {
			t.Errorf("Get(%q) = %q, %v; want %q", k, got, ok, v)
		}
	}
	if _, ok := c.Get("huge_page_size"); ok {
		t.Error("a commented-out setting is not set")
	}
	if s, _ := c.Setting("max_connections"); s.Line != 28 {
		t.Errorf("max_connections line = %d", s.Line)
	}
	if len(c.Includes) != 4 || c.Includes[3].Directive != "include_dir" || c.Includes[3].Path != "conf.d" || c.Includes[0].Line != 24 {
		t.Errorf("includes = %+v", c.Includes)
	}
	if n, ok, err := c.SharedBuffersBytes(); !ok || err != nil || n != 128<<20 {
		t.Errorf("shared_buffers = %d %v %v", n, ok, err)
	}
}

func TestLoadPGConfFollowsRelativeIncludes(t *testing.T) {
	s, errs := Load([]string{"testdata/pg/postgresql.conf"})
	noErrors(t, errs)
	if len(s.PGConfs) != 1 {
		t.Fatalf("pg confs = %d", len(s.PGConfs))
	}
	c := s.PGConfs[0]
	if hp, _ := c.HugePages(); hp != "on" {
		t.Errorf("huge_pages = %q (tuning.conf overrides)", hp)
	}
	if n, _, _ := c.SharedBuffersBytes(); n != 16<<30 {
		t.Errorf("shared_buffers = %d", n)
	}
	if p, _ := c.Setting("shared_buffers"); !strings.HasSuffix(p.File, "tuning.conf") || p.Line != 2 {
		t.Errorf("shared_buffers from %s:%d", p.File, p.Line)
	}
	if n, _, _ := c.HugePageSizeBytes(); n != 2<<20 {
		t.Errorf("huge_page_size = %d", n)
	}
	if n, _, _ := c.Bytes("effective_cache_size", 8192); n != 48<<30 {
		t.Errorf("effective_cache_size = %d (conf.d/20-mem.conf)", n)
	}
	if v, _ := c.Get("max_connections"); v != "500" {
		t.Errorf("max_connections = %q", v)
	}
	inc := c.Includes
	if len(inc) != 4 || !inc[0].Followed || inc[1].Followed || inc[2].Followed || !inc[3].Followed ||
		!strings.Contains(inc[1].Reason, "not present") || !strings.Contains(inc[2].Reason, "absolute") {
		t.Errorf("includes = %+v", inc)
	}
	// The include order is PostgreSQL's: tuning.conf entries come before
	// conf.d's, and the last max_connections line after all of them.
	var order []string
	for _, e := range c.Entries {
		if e.Name == "shared_buffers" || e.Name == "max_wal_size" || e.Name == "max_connections" {
			order = append(order, e.Name+"="+e.Value)
		}
	}
	if got := strings.Join(order, " "); got != "max_connections=400 shared_buffers=128MB shared_buffers=16GB max_wal_size=8GB max_connections=500" {
		t.Errorf("order = %s", got)
	}
}

func TestParsePGConfErrors(t *testing.T) {
	in := "shared_buffers = 1GB\n= 5\nwork_mem = 'unterminated\nport = 5432 extra\nmax_connections =\nssl = on # ok\n"
	c, errs := ParsePGConf([]byte(in))
	if len(errs) != 4 {
		t.Fatalf("errors = %v", errs)
	}
	for i, want := range []string{"line 2:", "line 3:", "line 4:", "line 5:"} {
		if !strings.Contains(errs[i].Error(), want) {
			t.Errorf("error %d = %v, want %s", i, errs[i], want)
		}
	}
	if v, _ := c.Get("ssl"); v != "on" || len(c.Entries) != 2 {
		t.Errorf("entries = %+v", c.Entries)
	}
}

func TestParsePGMemory(t *testing.T) {
	good := []struct {
		in   string
		unit int64
		want int64
	}{{"16384", 8192, 16384 * 8192}, {"128MB", 8192, 128 << 20}, {"8kB", 8192, 8192}, {"1.5GB", 8192, 3 << 29},
		{"2TB", 1, 2 << 40}, {"100B", 8192, 100}, {"4096", 1024, 4 << 20}}
	for _, g := range good {
		if got, err := ParsePGMemory(g.in, g.unit); err != nil || got != g.want {
			t.Errorf("ParsePGMemory(%q, %d) = %d, %v; want %d", g.in, g.unit, got, err, g.want)
		}
	}
	for _, in := range []string{"", "-1", "8gb", "8 KB", "MB", "1e400GB", "99999999999TB"} {
		if got, err := ParsePGMemory(in, 8192); err == nil {
			t.Errorf("ParsePGMemory(%q) = %d, want an error", in, got)
		}
	}
}

func FuzzParsePGConf(f *testing.F) {
	f.Add([]byte("shared_buffers = 128MB\nhuge_pages = try\ninclude 'x.conf'\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, _ := ParsePGConf(b)
		if c == nil {
			t.Fatal("nil result")
		}
		for _, e := range c.Entries {
			if e.Line < 1 || e.Name != strings.ToLower(e.Name) {
				t.Fatalf("entry %+v", e)
			}
		}
		c.SharedBuffersBytes()
		c.HugePages()
	})
}

// FuzzParsePGMemory: a postgresql.conf memory value (an integer, or a half,
// with one of PostgreSQL's case-sensitive units B, kB, MB, GB, TB, or none:
// the parameter's own unit) with the number the fuzzer chose is that many
// bytes, computed apart in 128 bits; beyond int64 it is an error; a unit in
// the wrong case ("mb") is refused.
func FuzzParsePGMemory(f *testing.F) {
	f.Add("1.5GB", uint32(3), uint8(3), uint16(8192))
	f.Fuzz(func(t *testing.T, s string, n uint32, form uint8, defUnit uint16) {
		if v, err := ParsePGMemory(s, 8192); err == nil && v < 0 {
			t.Fatalf("ParsePGMemory(%q) = %d", s, v)
		}
		units := []string{"", "B", "kB", "MB", "GB", "TB"}
		shift := []uint{0, 0, 10, 20, 30, 40}
		u := int(form) % len(units)
		mult := uint64(1) << shift[u]
		if u == 0 {
			mult = uint64(defUnit) + 1
		}
		text, twice := strconv.FormatUint(uint64(n), 10), uint64(n)*2
		if form&8 != 0 && u >= 2 { // "1.5GB": half units are exact in binary
			text, twice = text+".5", twice+1
		}
		text += units[u]
		hi, lo := bits.Mul64(twice, mult)
		lo = lo>>1 | hi<<63 // (2n or 2n+1) × mult / 2
		hi >>= 1
		got, err := ParsePGMemory(text, int64(mult))
		if hi != 0 || lo >= math.MaxInt64 {
			if err == nil {
				t.Fatalf("ParsePGMemory(%q) = %d, want out of range", text, got)
			}
			return
		}
		if err != nil || got != int64(lo) {
			t.Fatalf("ParsePGMemory(%q, %d) = %d %v, want %d", text, mult, got, err, lo)
		}
		if l := strings.ToLower(units[u]); u >= 3 && l != units[u] {
			if v, err := ParsePGMemory(strconv.FormatUint(uint64(n), 10)+l, 8192); err == nil {
				t.Fatalf("unit %q accepted (%d): PostgreSQL units are case-sensitive", l, v)
			}
		}
	})
}
