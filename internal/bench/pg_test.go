package bench

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/testdb"
)

// startPG starts a scratch PostgreSQL cluster (internal/testdb) for the
// test and returns the DSN of its Unix socket and its loopback TCP port.
func startPG(t *testing.T) (dsn string, tcpPort int) {
	t.Helper()
	p := testdb.StartPostgres(t, testdb.PGOptions{})
	return p.DSN, p.Port
}

// pgTables lists the tables of the public schema whose name starts with prefix.
func pgTables(t *testing.T, dsn, prefix string) []string {
	t.Helper()
	out, err := exec.Command("psql", dsn, "-Atc", "SELECT tablename FROM pg_tables WHERE schemaname='public' AND tablename LIKE '"+prefix+"%'").CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v %s", err, out)
	}
	return strings.Fields(string(out))
}
