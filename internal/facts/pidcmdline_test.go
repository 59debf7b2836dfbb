package facts

import (
	"strings"
	"testing"
)

func TestCmdlineText(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	s := cmdlineText([]string{long})
	if len(s) > maxCmdlineBytes || !strings.HasPrefix(long, s) || len(s) != 256 {
		t.Errorf("truncated to %d bytes: %q", len(s), s)
	}
	s = cmdlineText([]string{"a" + strings.Repeat("é", 200)})
	if len(s) != 255 || !strings.HasPrefix("a"+long, s) {
		t.Errorf("truncated to %d bytes", len(s))
	}
	if got := cmdlineText(cmdlineArgs([]byte("/bin/x\x00-a\x00b\x00\x00"))); got != "/bin/x -a b" {
		t.Errorf("got %q", got)
	}
	// A password on a process's command line is not kept (the snapshot is
	// sent to others), in each form, and the rest of the line is.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"psql", "postgres://app:SECRET@db1/app"}, "psql postgres://app:xxxxx@db1/app"},
		{[]string{"/opt/tool", "--password", "SECRET", "--db-pass=SECRET", "-v"}, "/opt/tool --password xxxxx --db-pass=xxxxx -v"},
		{[]string{"java", "-Durl=jdbc:postgresql://db1/x?user=a&password=SECRET", "-jar", "app.jar"}, "java -Durl=jdbc:postgresql://db1/x?user=a&password=xxxxx -jar app.jar"},
		{[]string{"pgbench", "host=db1 password='SE CRET' dbname=x"}, "pgbench host=db1 password=xxxxx dbname=x"},
		{[]string{"exporter", "--mysql", "mon:SECRET@tcp(db1:3306)/"}, "exporter --mysql mon:xxxxx@tcp(db1:3306)/"},
		{[]string{"/usr/pgsql-16/bin/postgres", "-D", "/var/lib/pgsql/16/data"}, "/usr/pgsql-16/bin/postgres -D /var/lib/pgsql/16/data"},
		{[]string{"tuned", "-l", "-P"}, "tuned -l -P"},
		{[]string{"sqlplus", "-s", "system/SECRET@ORCL"}, "sqlplus -s system/xxxxx@ORCL"},
		{[]string{"pmqos-static.py", "cpu_dma_latency=0"}, "pmqos-static.py cpu_dma_latency=0"},
	} {
		if got := cmdlineText(c.args); got != c.want {
			t.Errorf("cmdlineText(%q) = %q, want %q", c.args, got, c.want)
		}
	}
	// Redacted before the cut: no piece of a password at the end.
	longArgs := append([]string{strings.Repeat("a", 230)}, "postgres://u:SECRETSECRETSECRET@db1/x")
	if got := cmdlineText(longArgs); strings.Contains(got, "SECRET") || len(got) > maxCmdlineBytes {
		t.Errorf("a long command line: %q", got)
	}
}
