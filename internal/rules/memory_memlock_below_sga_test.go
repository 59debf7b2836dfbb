package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestMemlockBelowSGA(t *testing.T) {
	const id = "memory.memlock-below-sga"
	// The alert log's SGA dump: the instance saw 64 GB, needed 2104G.
	dump := "alert_P.log=Starting ORACLE instance (normal)\n*****\nDump of system resources acquired for SHARED GLOBAL AREA (SGA)\n\n" +
		"Per process system memlock (soft) limit = 64G\nExpected per process system memlock (soft) limit to lock\n" +
		"  SHARED GLOBAL AREA (SGA) into memory: 2104G\nAvailable system pagesizes:\n  4K, 2048K\n*****\n"
	fs := artFires(t, runArt(t, id, host(), artSet(t, dump), DBOracle))
	if fs[0].Setting != "limits:oracle memlock" || !strings.Contains(fs[0].Evidence, "alert_P.log:3: Per process system memlock (soft) limit = 64G") ||
		!strings.Contains(fs[0].Recommended, "2206203904 kB") {
		t.Fatalf("%+v", fs[0])
	}
	wantChange(t, fs[0], change.Limit, "oracle soft memlock", "2206203904", "-")
	wantChange(t, fs[0], change.Limit, "oracle hard memlock", "2206203904", "-")
	// The 000 example log: UNLIMITED → passes.
	artQuiet(t, runArt(t, id, host(), artSet(t, "alert_ORCL.log"), DBOracle), "passed")

	// limits.conf vs sga_target (16G = 16777216 kB) of CDB1, user from the processes.
	s := host()
	s.Processes = []snapshot.Process{{PID: 5, Comm: "ora_pmon_CDB1", Engine: "oracle", User: "oracle", Instance: "CDB1"}}
	s.Config.Limits = []snapshot.LimitEntry{
		{File: "/etc/security/limits.conf", Line: 60, Domain: "*", Type: "soft", Item: "memlock", Value: "unlimited"},
		{File: "/etc/security/limits.d/oracle-database-preinstall-19c.conf", Line: 9, Domain: "oracle", Type: "soft", Item: "memlock", Value: "3145728"},
		{File: "/etc/security/limits.d/oracle-database-preinstall-19c.conf", Line: 10, Domain: "oracle", Type: "hard", Item: "memlock", Value: "3145728"},
	}
	fs = artFires(t, runArt(t, id, s, artSet(t, "initCDB1.ora"), DBOracle))
	if !strings.HasPrefix(fs[0].Current, "3145728 kB") || !strings.Contains(fs[0].Evidence, "oracle-database-preinstall-19c.conf:9") ||
		!strings.Contains(fs[0].Evidence, "initCDB1.ora:3: sga_target") || fs[0].Fix.Edits[0].File != "/etc/security/limits.d/99-oracle-memlock.conf" || !strings.Contains(fs[0].Fix.Edits[0].Edit, "add oracle soft memlock 16777216 and oracle hard memlock 16777216") {
		t.Fatalf("%+v", fs[0])
	}
	// No line at all: the kernel default.
	s.Config.Limits = []snapshot.LimitEntry{}
	fs = artFires(t, runArt(t, id, s, artSet(t, "initCDB1.ora"), DBOracle))
	if !strings.HasPrefix(fs[0].Current, "not set") {
		t.Fatalf("%+v", fs[0])
	}
	// The user's own unlimited line: passes; large enough: passes.
	s.Config.Limits = []snapshot.LimitEntry{{File: "/etc/security/limits.conf", Line: 1, Domain: "oracle", Type: "-", Item: "memlock", Value: "unlimited"}}
	artQuiet(t, runArt(t, id, s, artSet(t, "initCDB1.ora"), DBOracle), "passed")
	s.Config.Limits = []snapshot.LimitEntry{{File: "/etc/security/limits.conf", Line: 1, Domain: "@dba", Type: "soft", Item: "memlock", Value: "20000000"}}
	artQuiet(t, runArt(t, id, s, artSet(t, "initCDB1.ora"), DBOracle), "passed")
	// limits unreadable: cannot check.
	s.Config.Limits = nil
	absent(s, "config.limits", "permission denied")
	artQuiet(t, runArt(t, id, s, artSet(t, "initCDB1.ora"), DBOracle), "cannot")
	// ... but the alert log's own account still fires.
	artFires(t, runArt(t, id, s, artSet(t, "initCDB1.ora", dump), DBOracle))
	artQuiet(t, runArt(t, id, s, nil, DBOracle), "n/a")
}

// TestHugepagesAndMemlockAgree: with 000's SGA dump (EXPECTED_PAGES 1077250
// of 2048K; "2104G" expected memlock, rounded down by Oracle) the pool asked
// for and the memlock asked for are the same pages, to the kB: 1077250 ×
// 2048 kB, not the 1077248 pages 2104G would give (two pages short: with
// use_large_pages=ONLY the instance does not start).
func TestHugepagesAndMemlockAgree(t *testing.T) {
	dump := "alert_ORCL.log=Starting ORACLE instance (normal)\n*****\nDump of system resources acquired for SHARED GLOBAL AREA (SGA)\n\n" +
		"Per process system memlock (soft) limit = 64G\nExpected per process system memlock (soft) limit to lock\n" +
		"  SHARED GLOBAL AREA (SGA) into memory: 2104G\nAvailable system pagesizes:\n  4K, 2048K\n" +
		"Supported system pagesize(s):\n  PAGESIZE  AVAILABLE_PAGES  EXPECTED_PAGES  ALLOCATED_PAGES  ERROR(s)\n" +
		"        4K       Configured               5        551815400        NONE\n" +
		"     2048K                0         1077250                0        NONE\n*****\n"
	s := host()
	s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Default: true}}
	for i := range s.Topology.Nodes {
		s.Topology.Nodes[i].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048}}
	}
	set := artSet(t, dump)
	hp := artFires(t, runArt(t, "memory.hugepages-too-few", s, set, DBOracle))[0]
	ml := artFires(t, runArt(t, "memory.memlock-below-sga", s, set, DBOracle))[0]
	const pages, kb = "1077250", "2206208000"
	if !strings.HasPrefix(hp.Recommended, "vm.nr_hugepages ≥ "+pages+" ") || !strings.Contains(hp.Fix.Edits[len(hp.Fix.Edits)-1].Edit, "oracle soft memlock "+kb+" ") {
		t.Fatalf("hugepages: %s / %v", hp.Recommended, hp.Fix.Lines())
	}
	if !strings.HasPrefix(ml.Recommended, "≥ "+kb+" kB") || !strings.Contains(ml.Evidence, "expected 1077250") {
		t.Fatalf("memlock: %+v", ml)
	}
	wantChange(t, ml, change.Limit, "oracle soft memlock", kb, "-")
	// Issue 26 item 8: a memlock already above the lock is never lowered
	// by the hugepages finding's persist line (nor is an unlimited one).
	for _, v := range []string{"3355443200", "unlimited"} {
		s2 := host()
		s2.Memory.Hugepages = s.Memory.Hugepages
		s2.Topology.Nodes = s.Topology.Nodes
		s2.Config.Limits = []snapshot.LimitEntry{{File: "/etc/security/limits.conf", Line: 1, Domain: "oracle", Type: "soft", Item: "memlock", Value: v}}
		hp := artFires(t, runArt(t, "memory.hugepages-too-few", s2, set, DBOracle))[0]
		for _, p := range hp.Fix.Lines() {
			if strings.Contains(p, "memlock") {
				t.Errorf("memlock %s: the hugepages fix would set %q", v, p)
			}
		}
	}
	// With the SGA already in those pages, nothing is missing.
	s.Memory.Hugepages[0].Total = 1077250
	if rep := runArt(t, "memory.hugepages-too-few", s, artSet(t, strings.Replace(dump, "                0        NONE", "          1077250        NONE", 1)), DBOracle); len(rep.Findings) != 0 {
		t.Fatalf("%+v", rep.Findings)
	}
}
