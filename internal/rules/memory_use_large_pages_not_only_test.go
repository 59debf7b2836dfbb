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
	// 000's own startup (Scenario 2, "Confirming Oracle's use of HugePages"): use_large_pages TRUE,
	// which 000 accepts ("either TRUE or ONLY"), and the SGA dump shows every expected 2048K page
	// allocated: the whole SGA is in hugepages, nothing to say.
	pass := artQuiet(t, runArt(t, id, hugeHost(1536000, 458750), artSet(t, "alert_O.log="+seed000SGAStartup("TRUE")), DBOracle), "passed")
	if !strings.Contains(pass, "use_large_pages = TRUE") || !strings.Contains(pass, "2048K pages expected 1077250, allocated 1077250") {
		t.Fatalf("pass without its evidence: %q", pass)
	}
	// The same dump with a part of the SGA left in 4 KiB pages: TRUE fell back, info.
	short := strings.Replace(seed000SGAStartup("TRUE"), "1077250          NONE", "1000000          NONE\n     4K       Configured           77250           77250          NONE", 1)
	fs = artFires(t, runArt(t, id, hugeHost(1536000, 458750), artSet(t, "alert_O.log="+short), DBOracle))
	if fs[0].Severity != SevInfo || !strings.Contains(fs[0].Evidence, "allocated 1000000") {
		t.Fatalf("%+v", fs[0])
	}
	// 11.2's "Total Shared Global Region in Large Pages = ... (100%)": the whole SGA too.
	pass = artQuiet(t, runArt(t, id, hugeHost(8192, 0), artSet(t, "alert_P.log=Starting ORACLE instance (normal)\n****************** Large Pages Information *****************\nTotal Shared Global Region in Large Pages = 16 GB (100%)\nLarge Pages used by this instance: 8192 (16 GB)\n***********************************************************\nSystem parameters with non-default values:\n  use_large_pages = \"TRUE\"\n  sga_target = 16G\n"), DBOracle), "passed")
	if !strings.Contains(pass, "100 % of the SGA in large pages") {
		t.Fatalf("pass without its evidence: %q", pass)
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

// seed000SGAStartup is a startup with 000's SGA dump (Scenario 2, "Confirming
// Oracle's use of HugePages") and use_large_pages set to v.
func seed000SGAStartup(v string) string {
	return "Starting ORACLE instance (normal)\n" +
		"*****\n" +
		"Dump of system resources acquired for SHARED GLOBAL AREA (SGA)\n\n" +
		"Per process system memlock (soft) limit = UNLIMITED\n" +
		"Expected per process system memlock (soft) limit to lock\n" +
		"  SHARED GLOBAL AREA (SGA) into memory: 2104G\n" +
		"Available system pagesizes:\n" +
		"  4K, 2048K\n" +
		"Supported system pagesize(s):\n" +
		"  PAGESIZE  AVAILABLE_PAGES  EXPECTED_PAGES  ALLOCATED_PAGES  ERROR(s)\n\n" +
		"  2048K      1536000             1077250         1077250          NONE\n" +
		"Reason for not supporting certain system pagesizes:\n" +
		"  4K - Large pagesizes only\n" +
		"*****\n" +
		"Starting up:\n" +
		"System parameters with non-default values:\n" +
		"  sga_target               = 2100G\n" +
		"  use_large_pages          = \"" + v + "\"\n" +
		"  db_name                  = \"O\"\n"
}
