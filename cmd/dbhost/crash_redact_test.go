package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrashFileRedactsPasswords (issue 24, item 9): an internal error
// during a command given a password on its command line (a DSN in each form
// the drivers read, a password flag in experiment's --bench) writes the
// command line into the crash file the operator is asked to attach to a
// public issue: the password must be in neither that file nor the report on
// standard error, and the rest of the command line must be (the report is
// no use without it).
func TestCrashFileRedactsPasswords(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct {
		args []string
		kept string // what the file's command line still says
	}{
		{[]string{"audit", "--pg", "postgres://mon:SECRET@127.0.0.1:1/db"}, "audit --pg postgres://mon:xxxxx@127.0.0.1:1/db"},
		{[]string{"audit", "--pg=postgresql://mon:S%40CRET@127.0.0.1:1/db?sslmode=disable"}, "--pg=postgresql://mon:xxxxx@127.0.0.1:1/db?sslmode=disable"},
		{[]string{"audit", "--pg", "postgres://127.0.0.1:1/db?user=mon&password=SECRET&sslmode=disable"}, "?user=mon&password=xxxxx&sslmode=disable"},
		{[]string{"audit", "--pg", "host=127.0.0.1 port=1 user=mon password=SECRET dbname=db"}, "host=127.0.0.1 port=1 user=mon password=xxxxx dbname=db"},
		{[]string{"audit", "--pg", "host=127.0.0.1 port=1 password = 'SE CRET\\'S' user=mon"}, "password = xxxxx user=mon"},
		{[]string{"audit", "--mysql", "mon:SECRET@tcp(127.0.0.1:1)/"}, "--mysql mon:xxxxx@tcp(127.0.0.1:1)/"},
		{[]string{"collect", "--mysql=mon:SE CR@ET@unix(/run/mysqld/mysqld.sock)/", "--pg", "postgres://a:SECRET@127.0.0.1:1/x"}, "--mysql=mon:xxxxx@unix(/run/mysqld/mysqld.sock)/ --pg postgres://a:xxxxx@127.0.0.1:1/x"},
		{[]string{"bench", "db", "--dsn", "postgres://bench:SECRET@127.0.0.1:1/pgbench"}, "--dsn postgres://bench:xxxxx@127.0.0.1:1/pgbench"},
		{[]string{"experiment", "--rule", "memory.swappiness", "--bench", `db --dsn "host=/run/postgresql password=SECRET" --duration 1s`}, `--bench db --dsn "host=/run/postgresql password=xxxxx --duration 1s`},
	} {
		r := hooksExec(t, []string{"DBHOST_TEST_PANIC=command", "TMPDIR=" + tmp, "PGPASSWORD=SECRET"}, c.args...)
		if r.code != exitInternal {
			t.Errorf("%q: exit %d, want 1:\n%s", c.args, r.code, r.stderr)
		}
		files, _ := filepath.Glob(filepath.Join(tmp, "dbhost-internal-error-*.txt"))
		if len(files) != 1 || !strings.Contains(r.stderr, files[0]) {
			t.Fatalf("%q: crash files %v, not named in:\n%s", c.args, files, r.stderr)
		}
		b, _ := os.ReadFile(files[0])
		os.Remove(files[0])
		for what, text := range map[string]string{"the crash file": string(b), "stderr": r.stderr} {
			for _, secret := range []string{"SECRET", "S%40CRET", "SE CR", "CRET\\'S"} {
				if strings.Contains(text, secret) {
					t.Errorf("%q: %s holds the password %q:\n%s", c.args, what, secret, text)
				}
			}
		}
		wantContains(t, "the crash file", string(b), "command: dbhost "+c.args[0]+" ", c.kept, "goroutine ")
	}
}

// TestExperimentBenchPasswordNotPrinted: experiment's --bench holds the
// bench's command line, a --dsn with its password included; a --bench
// dbhost cannot split (an unclosed quote) is a usage error that quotes it
// back: without its password (it was printed as given).
func TestExperimentBenchPasswordNotPrinted(t *testing.T) {
	for _, bench := range []string{
		`db --dsn "postgres://u:SECRET@127.0.0.1:1/d --duration 1s`,
		`db --dsn "host=127.0.0.1 password=SECRET --duration 1s`,
	} {
		r := dbhostExec(t, nil, "experiment", "--rule", "memory.swappiness", "--bench", bench)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--bench") {
			t.Errorf("--bench %q: exit %d, want 2:\n%s", bench, r.code, r.stderr)
		}
		if strings.Contains(r.stderr+r.stdout, "SECRET") {
			t.Errorf("--bench %q: the password is printed:\n%s", bench, r.stderr)
		}
		wantContains(t, "stderr", r.stderr, "xxxxx")
	}
}
