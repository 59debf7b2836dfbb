package artifacts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecognizeTestdata(t *testing.T) {
	want := map[string]Kind{
		"alert_ORCL.log": KindAlertLog, "alert_cdb19.log": KindAlertLog, "initORCL.ora": KindInit,
		"spfileORCL.strings": KindSpfile, "spfileBDT12c1.ora": KindSpfile, "listener.ora": KindListener,
		"tnsnames.ora": KindTNSNames, "cgconfig.conf": KindCgconfig, "pg/postgresql.conf": KindPGConf,
		"pg/tuning.conf": KindPGConf, "standalone.xml": KindDatasource, "oracle-ds.xml": KindDatasource,
		"legacy-oracle-ds.xml": KindDatasource, "srvctl_config_service.txt": KindSrvctl,
	}
	for f, k := range want {
		if got := Recognize(readTestdata(t, f)); got != k {
			t.Errorf("Recognize(%s) = %q, want %q", f, got, k)
		}
	}
}

func TestRecognizeSnippets(t *testing.T) {
	cases := []struct {
		in   string
		want Kind
	}{
		{"", ""},
		{"   \n\n", ""},
		{"hello world\n", ""},
		{"\x00\x01\x02binary", ""},
		{"<?xml version=\"1.0\"?><project><datasource-name>x</datasource-name></project>", ""},
		{"<datasources><datasource jndi-name=\"a\"/></datasources>", KindDatasource},
		// A pfile whose local_listener holds an ADDRESS list is still a pfile.
		{"*.db_name='X'\n*.local_listener='(ADDRESS=(PROTOCOL=TCP)(HOST=h)(PORT=1521))'\n", KindInit},
		{"db_name=X\nlocal_listener=LISTENER_X\n", KindInit},
		{"LISTENER = (ADDRESS = (PROTOCOL = TCP)(HOST = h)(PORT = 1521))\n", KindListener},
		{"CONNECTION_RATE_LISTENER = 10\n", KindListener},
		{"X.WORLD = (DESCRIPTION = (ADDRESS = (PROTOCOL = TCP)(HOST = h)(PORT = 1))(CONNECT_DATA = (SID = X)))\n", KindTNSNames},
		{"shared_buffers = 8GB\nmax_connections 100\n", KindPGConf},
		{"processes = 300\nsga_target = 2G\n", KindInit},
		{"group db { cpuset { cpuset.cpus = 0; } }\n", KindCgconfig},
		{"Service name: S\nPreferred instances: a\n", KindSrvctl},
		{"Service name: S\n", ""},
		{"Tue Mar 10 09:12:01 2015\nStarting ORACLE instance (normal)\n", KindAlertLog},
		{"2023-06-01T08:00:01.123456+00:00\nNUMA system with 2 nodes detected\n", KindAlertLog},
	}
	for _, c := range cases {
		if got := Recognize([]byte(c.in)); got != c.want {
			t.Errorf("Recognize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "initBAD.ora")
	if err := os.WriteFile(bad, []byte("*.db_name='BAD'\n*.sga_target=2G\n*.processes=\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unknown := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(unknown, []byte("just some notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{
		"testdata/alert_ORCL.log", "testdata/initORCL.ora", "testdata/spfileORCL.strings", "testdata/listener.ora",
		"testdata/tnsnames.ora", "testdata/cgconfig.conf", "testdata/pg/postgresql.conf", "testdata/standalone.xml",
		"testdata/srvctl_config_service.txt", bad, unknown, filepath.Join(dir, "missing.ora"), dir,
	}
	s, errs := Load(paths)
	if len(s.Files) != len(paths) {
		t.Fatalf("files = %+v", s.Files)
	}
	if len(s.AlertLogs) != 1 || len(s.Params) != 3 || len(s.Listeners) != 1 || len(s.TNSNames) != 1 || len(s.Cgconfigs) != 1 ||
		len(s.PGConfs) != 1 || len(s.Datasources) != 3 || len(s.Services) != 2 {
		t.Errorf("set = %d alert, %d params, %d listeners, %d tns, %d cgconfig, %d pg, %d ds, %d services",
			len(s.AlertLogs), len(s.Params), len(s.Listeners), len(s.TNSNames), len(s.Cgconfigs), len(s.PGConfs), len(s.Datasources), len(s.Services))
	}
	if s.Params[1].File != "testdata/spfileORCL.strings" || !s.Params[1].Spfile || s.Files[2].Kind != KindSpfile {
		t.Errorf("spfile = %+v %+v", s.Params[1], s.Files[2])
	}
	if s.Datasources[1].File != "testdata/standalone.xml" || s.Services[0].File != "testdata/srvctl_config_service.txt" ||
		s.Listeners[0].Kind != KindListener || s.AlertLogs[0].File != "testdata/alert_ORCL.log" {
		t.Error("File not set on parsed artifacts")
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("the Set must marshal to JSON: %v", err)
	}
	// The malformed pfile still contributes what it could parse.
	if v, _ := s.Params[2].Get("", "sga_target"); v != "2G" {
		t.Errorf("bad pfile sga_target = %q", v)
	}
	if len(errs) != 4 {
		t.Fatalf("errors = %v", errs)
	}
	wantErr := []string{bad + ":3: expected a value after '='", unknown + ": not a recognised artifact", "missing.ora: cannot read: no such file", dir + ": cannot read"}
	for i, w := range wantErr {
		if !strings.Contains(errs[i].Error(), w) {
			t.Errorf("error %d = %q, want %q", i, errs[i], w)
		}
		if _, ok := errs[i].(*Error); !ok {
			t.Errorf("error %d is %T, not *Error", i, errs[i])
		}
	}
	if s.Files[len(paths)-3].Kind != "" {
		t.Errorf("unknown file kind = %q", s.Files[len(paths)-3].Kind)
	}
}

func TestErrorFormat(t *testing.T) {
	for _, c := range []struct {
		e    Error
		want string
	}{
		{Error{File: "initORCL.ora", Line: 12, Msg: "m"}, "initORCL.ora:12: m"},
		{Error{File: "f", Msg: "m"}, "f: m"},
		{Error{Line: 3, Msg: "m"}, "line 3: m"},
		{Error{Msg: "m"}, "m"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v → %q, want %q", c.e, got, c.want)
		}
	}
}

func TestErrorsAreBounded(t *testing.T) {
	_, errs := ParseInit([]byte(strings.Repeat("no equals sign here\n", 1000)))
	if len(errs) != maxErrors+1 || !strings.Contains(errs[maxErrors].Error(), "980 more errors") {
		t.Errorf("%d errors, last %v", len(errs), errs[len(errs)-1])
	}
}

func FuzzRecognize(f *testing.F) {
	f.Add([]byte("*.sga_target=2G\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k := Recognize(b)
		s := &Set{}
		errs := s.Add("f", b)
		if len(s.Files) != 1 || s.Files[0].Kind != k {
			t.Fatalf("files = %+v, kind %q", s.Files, k)
		}
		if k == "" && len(errs) != 1 {
			t.Fatalf("unknown kind must give one error, got %v", errs)
		}
		for _, e := range errs {
			if pe, ok := e.(*Error); ok && pe.File == "" && pe.Msg != "" && !strings.Contains(pe.Msg, "more errors") {
				t.Fatalf("error without file: %v", e)
			}
		}
	})
}

func TestLoadBigAlertLogReadsTheEnd(t *testing.T) {
	old := maxFileSize
	maxFileSize = 4096
	defer func() { maxFileSize = old }()
	dir := t.TempDir()
	var sb strings.Builder
	sb.WriteString("Starting ORACLE instance (normal)\nNUMA system with 2 nodes detected\n")
	for sb.Len() < 20000 {
		sb.WriteString("Thread 1 advanced to log sequence 42 (LGWR switch)\n")
	}
	prefix := strings.Count(sb.String(), "\n")
	last := string(readTestdata(t, "alert_cdb19.log"))
	sb.WriteString(last[:strings.Index(last, "\n")+1]) // the timestamp
	sb.WriteString("Starting ORACLE instance (restrict)\nOracle NUMA support not enabled\n")
	p := filepath.Join(dir, "alert_BIG.log")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, errs := Load([]string{p})
	noErrors(t, errs)
	if len(s.AlertLogs) != 1 || !strings.Contains(s.Files[0].Note, "only the last") {
		t.Fatalf("files = %+v", s.Files)
	}
	st := s.AlertLogs[0].Last()
	if st == nil || st.Mode != "restrict" || st.Line != prefix+2 || st.NUMA == nil || st.NUMA.Line != prefix+3 {
		t.Fatalf("last startup = %+v (want line %d)", st, prefix+2)
	}

	// A big file of another kind: its start is read.
	var pg strings.Builder
	pg.WriteString("shared_buffers = 8GB\n")
	for pg.Len() < 10000 {
		pg.WriteString("# comment line\n")
	}
	p2 := filepath.Join(dir, "postgresql.conf")
	if err := os.WriteFile(p2, []byte(pg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ = Load([]string{p2})
	if len(s.PGConfs) != 1 || !strings.Contains(s.Files[0].Note, "only the first") {
		t.Fatalf("files = %+v", s.Files)
	}
	if v, _ := s.PGConfs[0].Get("shared_buffers"); v != "8GB" {
		t.Errorf("shared_buffers = %q", v)
	}
}
