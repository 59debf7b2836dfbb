package rules

import (
	"strings"
	"testing"
)

func TestUseLargePagesNotOnly(t *testing.T) {
	const id = "memory.use-large-pages-not-only"
	// FALSE on a host with a pool: warning.
	fs := artFires(t, runArt(t, id, hugeHost(8192, 8192), artSet(t, "initA.ora=*.db_name=A\n*.sga_target=8G\n*.use_large_pages=FALSE\n"), DBOracle))
	if fs[0].Severity != SevWarning || fs[0].Current != "FALSE for instance A" || !strings.Contains(fs[0].Evidence, "initA.ora:3") ||
		!strings.Contains(fs[0].Fix.Persistent[0], "use_large_pages='ONLY' SCOPE=SPFILE") || !strings.Contains(fs[0].Risk, "ORA-27137") {
		t.Fatalf("%+v", fs[0])
	}
	// Unset in a complete pfile: the default TRUE, info (the trade-off).
	fs = artFires(t, runArt(t, id, hugeHost(8192, 8192), artSet(t, "initB.ora=*.db_name=B\n*.sga_target=8G\n"), DBOracle))
	if fs[0].Severity != SevInfo || !strings.HasPrefix(fs[0].Current, "TRUE (default, not set)") {
		t.Fatalf("%+v", fs[0])
	}
	// TRUE with the alert log's SGA dump as evidence.
	fs = artFires(t, runArt(t, id, hugeHost(1536000, 458750), artSet(t, "alert_O.log=Starting ORACLE instance (normal)\nSystem parameters with non-default values:\n  use_large_pages = \"TRUE\"\n  sga_target = 2100G\n"), DBOracle))
	if !strings.Contains(fs[0].Evidence, "alert_O.log:3: use_large_pages = TRUE") {
		t.Fatalf("%+v", fs[0])
	}
	// ONLY: passes; no pool: not applicable; pool unknown: cannot check.
	artQuiet(t, runArt(t, id, hugeHost(8192, 0), artSet(t, "initCDB1.ora"), DBOracle), "passed")
	artQuiet(t, runArt(t, id, hugeHost(0, 0), artSet(t, "initCDB1.ora"), DBOracle), "n/a")
	s := host()
	absent(s, "memory.hugepages", "no hugetlbfs")
	if r := runArt(t, id, s, artSet(t, "initB.ora=*.db_name=B\n"), DBOracle); len(r.CannotCheck) != 1 || !strings.Contains(r.CannotCheck[0].Reason, "no hugetlbfs") {
		t.Fatalf("%+v", r)
	}
}
