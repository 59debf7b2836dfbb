package facts

import (
	"testing"
)

func TestClassifyProcess(t *testing.T) {
	for _, tc := range []struct {
		comm, cmdline      string
		engine, role, inst string
		ok                 bool
	}{
		{"ora_pmon_ORCL", "ora_pmon_ORCL", "oracle", "pmon", "ORCL", true},
		{"ora_dbw0_ORCL_1", "", "oracle", "background", "ORCL_1", true},
		{"mdb_pmon_-MGMTD", "mdb_pmon_-MGMTDB", "oracle", "pmon", "-MGMTDB", true},
		{"oracle+ASM1", "oracle+ASM1 (DESCRIPTION=(LOCAL=YES)(ADDRESS=(PROTOCOL=beq)))", "oracle", "shadow", "+ASM1", true},
		{"oracleORCL", "", "oracle", "shadow", "ORCL", true},
		{"oracle-cloud-ag", "/usr/bin/oracle-cloud-agent", "", "", "", false},
		{"oracleasm", "/bin/sh\x00/usr/sbin/oracleasm\x00scandisks", "", "", "", false},
		{"tnslsnr", "/u01/bin/tnslsnr\x00LISTENER\x00-inherit", "oracle", "listener", "LISTENER", true},
		{"mysqld", "/usr/sbin/mysqld\x00--datadir\x00/data", "mysql", "server", "/data", true},
		{"postgres", "postgres", "postgres", "", "", true},
		{"bash", "bash", "", "", "", false},
	} {
		e, r, i, ok := classifyProcess(tc.comm, cmdlineArgs([]byte(tc.cmdline)))
		if e != tc.engine || r != tc.role || i != tc.inst || ok != tc.ok {
			t.Errorf("%q %q: got %q %q %q %v", tc.comm, tc.cmdline, e, r, i, ok)
		}
	}
}

func TestPGRole(t *testing.T) {
	for title, want := range map[string]string{
		"postgres: checkpointer":                             "checkpointer",
		"postgres: 15/main: background writer   ":            "background writer",
		"postgres: writer process":                           "background writer",
		"postgres: wal writer process":                       "walwriter",
		"postgres: bgworker: logical replication launcher":   "logical replication launcher",
		"postgres: walsender repl 10.0.0.2(4312) streaming":  "walsender",
		"postgres: app db [local] idle":                      "backend",
		"postgres: main: app db ::1(5432) SELECT":            "backend",
		"postgres: 16/main: autovacuum worker appdb":         "autovacuum worker",
		"postgres: pg_cron launcher":                         "background worker",
		"/usr/lib/postgresql/15/bin/postgres --single":       "backend",
		"postgres: 15/main: parallel worker for PID 4242   ": "parallel worker",
	} {
		if got := pgRole([]string{title}); got != want {
			t.Errorf("pgRole(%q) = %q, want %q", title, got, want)
		}
	}
}

func FuzzClassifyProcess(f *testing.F) {
	f.Add("ora_pmon_ORCL", []byte("ora_pmon_ORCL\x00"))
	f.Add("postgres", []byte("postgres: 15/main: app db [local] idle\x00"))
	f.Fuzz(func(t *testing.T, comm string, cmdline []byte) {
		args := cmdlineArgs(cmdline)
		e, _, _, ok := classifyProcess(comm, args)
		if ok != (e != "") {
			t.Fatalf("ok=%v engine=%q", ok, e)
		}
		if r := pgRole(args); r == "" {
			t.Fatal("empty pg role")
		}
		if s := cmdlineText(args); len(s) > maxCmdlineBytes {
			t.Fatalf("cmdline %d bytes", len(s))
		}
	})
}
