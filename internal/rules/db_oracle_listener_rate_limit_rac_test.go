package rules

import (
	"strings"
	"testing"
)

func TestListenerRateLimitRAC(t *testing.T) {
	const id = "db.oracle-listener-rate-limit-rac"
	// The CRS-managed listener.ora: RATE_LIMIT at DESCRIPTION and ADDRESS level plus CONNECTION_RATE_LISTENER.
	fs := artFires(t, runArt(t, id, host(), artSet(t, "listener.ora"), DBOracle))
	f := fs[0]
	if len(fs) != 1 || f.Setting != "listener.ora:LISTENER RATE_LIMIT" || !strings.HasPrefix(f.Current, "3 rate-limit settings") ||
		!strings.Contains(f.Evidence, "listener.ora:7:") || !strings.Contains(f.Evidence, "listener.ora:26: CONNECTION_RATE_LISTENER = 10") ||
		!strings.Contains(f.Evidence, "SCAN listener entry LISTENER_SCAN1") {
		t.Fatalf("%+v", f)
	}
	single := "listener.ora=LISTENER =\n  (DESCRIPTION =\n    (RATE_LIMIT = 10)\n    (ADDRESS = (PROTOCOL = TCP)(HOST = db1)(PORT = 1521))\n  )\n"
	// A single instance: RATE_LIMIT is supported.
	artQuiet(t, runArt(t, id, host(), artSet(t, single), DBOracle), "passed")
	// The same file with a RAC pfile (cluster_database = true): fires.
	fs = artFires(t, runArt(t, id, host(), artSet(t, single, "initBDT12c1.ora"), DBOracle))
	if !strings.Contains(fs[0].Evidence, "initBDT12c1.ora:19: cluster_database = true") {
		t.Fatalf("%+v", fs[0])
	}
	// RATE_LIMIT = no on RAC: disabled, nothing to say.
	off := strings.Replace(single, "(RATE_LIMIT = 10)", "(RATE_LIMIT = no)", 1)
	artQuiet(t, runArt(t, id, host(), artSet(t, off, "initBDT12c1.ora"), DBOracle), "passed")
	artQuiet(t, runArt(t, id, host(), artSet(t, "initCDB1.ora"), DBOracle), "n/a")
}
