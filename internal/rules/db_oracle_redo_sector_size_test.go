package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

const redoAlertLog = "Starting ORACLE instance (normal)\nORACLE_SID = ORCL\nCompleted: ALTER DATABASE OPEN\n" +
	"Thread 1 opened at log sequence 5\n  Current log# 2 seq# 5 mem# 0: /u02/oradata/ORCL/redo02a.log\n" +
	"  Current log# 2 seq# 5 mem# 1: /u03/oradata/ORCL/redo02b.log\n"

// redoHost is sanHost with /u02 on nvme0n1 (4K native) and /u03 on the
// multipath LUN dm-0 (mpatha), 512e.
func redoHost() *snapshot.Snapshot {
	s := sanHost()
	s.Storage.Mounts = append(s.Storage.Mounts, snapshot.Mount{Device: "/dev/mapper/mpatha", Path: "/u03", FSType: "xfs", Options: []string{"rw", "noatime"}})
	for i := range s.Storage.Devices {
		d := &s.Storage.Devices[i]
		d.LogicalBlockSize, d.PhysicalBlockSize = i64(512), i64(512)
		switch d.Name {
		case "nvme0n1":
			d.LogicalBlockSize, d.PhysicalBlockSize = i64(4096), i64(4096)
		case "dm-0", "sdb", "sdc":
			d.PhysicalBlockSize = i64(4096)
		}
	}
	return s
}

func TestOracleRedoSectorSize(t *testing.T) {
	const id = "db.oracle-redo-sector-size"
	set := &artifacts.Set{}
	if errs := set.Add("alert_ORCL.log", []byte(redoAlertLog)); len(errs) > 0 {
		t.Fatal(errs)
	}
	rep := runArt(t, id, redoHost(), set, DBOracle)
	if len(rep.Findings) != 1 {
		t.Fatalf("%+v", rep)
	}
	f := rep.Findings[0]
	if f.Setting != "redo log BLOCKSIZE on dm-0" || f.Severity != SevInfo || f.Pending != PendingManual || len(f.Changes) != 0 ||
		!strings.Contains(f.Evidence, "logical_block_size 512, physical_block_size 4096") || !strings.Contains(f.Evidence, "redo02b.log (alert_ORCL.log:6)") ||
		strings.Contains(f.Evidence, "redo02a") || !strings.Contains(f.Fix.Persistent[1], "BLOCKSIZE 4096") {
		t.Fatalf("%+v", f)
	}
	// 004's 28 → 2 ms is JFS2's demoted I/O on AIX, not a 512e drive's
	// read-modify-write: it is not claimed as this finding's cost.
	if strings.Contains(f.Why, "28 ms with demoted") || !strings.Contains(f.Why, "another mechanism") {
		t.Errorf("why: %s", f.Why)
	}
	for _, src := range f.Sources {
		if src.Section == "IO : Direct IO demoted" {
			t.Errorf("cites 004's demoted-I/O measurement: %+v", src)
		}
	}
	// A dm device without its own sizes: its paths' (the largest physical sector).
	s := redoHost()
	dev(t, s, "dm-0").PhysicalBlockSize = nil
	if rep := runArt(t, id, s, set, DBOracle); len(rep.Findings) != 1 {
		t.Fatalf("%+v", rep)
	}
	// 512n everywhere, or 4K native: quiet.
	s = redoHost()
	for _, n := range []string{"dm-0", "sdb", "sdc"} {
		dev(t, s, n).PhysicalBlockSize = i64(512)
	}
	if rep := runArt(t, id, s, set, DBOracle); len(rep.Findings) != 0 || len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "nvme0n1 (logical 4096, physical 4096)") {
		t.Fatalf("%+v", rep)
	}
	// ASM members and unknown sector sizes: could not check.
	if rep := runArt(t, id, redoHost(), asmRedoArtifacts(), DBOracle); len(rep.CannotCheck) != 1 || !strings.Contains(rep.CannotCheck[0].Reason, "ASM member") {
		t.Fatalf("%+v", rep)
	}
	s = redoHost()
	for i := range s.Storage.Devices {
		s.Storage.Devices[i].PhysicalBlockSize = nil
	}
	if rep := runArt(t, id, s, set, DBOracle); len(rep.CannotCheck) != 1 || !strings.Contains(rep.CannotCheck[0].Reason, "sector sizes of") {
		t.Fatalf("%+v", rep)
	}
	// No alert log: not applicable; an alert log without redo lines: could not check.
	if rep := runArt(t, id, redoHost(), nil, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	bare := &artifacts.Set{}
	bare.Add("alert_ORCL.log", []byte("Starting ORACLE instance (normal)\nORACLE_SID = ORCL\n"))
	if rep := runArt(t, id, redoHost(), bare, DBOracle); len(rep.CannotCheck) != 1 || !strings.Contains(rep.CannotCheck[0].Reason, "no online redo member") {
		t.Fatalf("%+v", rep)
	}
}

// asmRedoArtifacts is an alert log whose redo members are in ASM disk group REDO.
func asmRedoArtifacts() *artifacts.Set {
	set := &artifacts.Set{}
	set.Add("alert_ORCL.log", []byte(strings.ReplaceAll(strings.ReplaceAll(redoAlertLog, "/u02/oradata/ORCL/redo02a.log", "+REDO/ORCL/ONLINELOG/group_2.261.1"),
		"/u03/oradata/ORCL/redo02b.log", "+REDO/ORCL/ONLINELOG/group_2.262.1")))
	return set
}
