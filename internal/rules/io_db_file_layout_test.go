package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// layoutHost is sanHost with /u02 on nvme0n1, /u03 on the multipath LUN
// (mpatha) and /u04 on LVM over the local disk sda (vg-arch, dm-5).
func layoutHost() *snapshot.Snapshot {
	s := sanHost()
	lv := snapshot.BlockDevice{Name: "dm-5", Kind: "dm", DMName: "vg-arch", Slaves: []string{"sda3"}}
	s.Storage.Devices = append(s.Storage.Devices, lv)
	s.Storage.Mounts = append(s.Storage.Mounts,
		snapshot.Mount{Device: "/dev/mapper/mpatha", Path: "/u03", FSType: "xfs"},
		snapshot.Mount{Device: "/dev/mapper/vg-arch", Path: "/u04", FSType: "xfs"})
	return s
}

func layoutArtifacts(t *testing.T, init string) *artifacts.Set {
	t.Helper()
	set := &artifacts.Set{}
	if errs := set.Add("alert_ORCL.log", []byte(redoAlertLog)); len(errs) > 0 {
		t.Fatal(errs)
	}
	if init != "" {
		if errs := set.Add("initORCL.ora", []byte(init)); len(errs) > 0 {
			t.Fatal(errs)
		}
	}
	return set
}

func TestIODBFileLayout(t *testing.T) {
	const id = "io.db-file-layout"
	// Redo members on /u02 (nvme0n1) and /u03 (dm-0); data files beside the control file on /u03: shared LUN dm-0.
	set := layoutArtifacts(t, "*.db_name=ORCL\n*.control_files='/u03/oradata/ORCL/control01.ctl','/u04/fra/control02.ctl'\n"+
		"*.log_archive_dest_1='LOCATION=/u04/arch'\n")
	rep := runArt(t, id, layoutHost(), set, DBOracle)
	if len(rep.Findings) != 1 {
		t.Fatalf("%+v", rep)
	}
	f := rep.Findings[0]
	if f.Setting != "database file layout (ORCL)" || f.Severity != SevInfo || f.Pending != PendingManual || len(f.Changes) != 0 ||
		f.Current != "the online redo and the data files (beside control file /u03/oradata/ORCL/control01.ctl) share dm-0" ||
		!strings.Contains(f.Evidence, "online redo member /u03/oradata/ORCL/redo02b.log (alert_ORCL.log:6) on /u03 (/dev/mapper/mpatha, dm-0) → dm-0") {
		t.Fatalf("%+v", f)
	}
	// db_create_file_dest elsewhere, archived logs on the redo's NVMe: 004's redo vs archive.
	set = layoutArtifacts(t, "*.db_name=ORCL\n*.db_create_file_dest='/u04/oradata'\n*.log_archive_dest_1='LOCATION=/u02/arch MANDATORY'\n")
	rep = runArt(t, id, layoutHost(), set, DBOracle)
	if len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Current, "the online redo and the archived logs share nvme0n1") {
		t.Fatalf("%+v", rep)
	}
	// Everything apart: passes, naming each place's devices (the LVM volume resolved to sda).
	set = layoutArtifacts(t, "*.db_name=ORCL\n*.db_create_file_dest='/u04/oradata'\n*.log_archive_dest_1='LOCATION=USE_DB_RECOVERY_FILE_DEST'\n")
	rep = runArt(t, id, layoutHost(), set, DBOracle)
	if len(rep.Findings) != 0 || len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "data files (db_create_file_dest) on sda") {
		t.Fatalf("%+v", rep)
	}
	// Redo on spinning local disks while the host has NVMe: 003's hot spots.
	s := layoutHost()
	for i := range s.Storage.Devices {
		if s.Storage.Devices[i].Name == "sda" {
			s.Storage.Devices[i].Rotational = ptr(true)
		}
	}
	s.Storage.Mounts[1] = snapshot.Mount{Device: "/dev/mapper/vg-arch", Path: "/u02", FSType: "xfs"}
	set = layoutArtifacts(t, "*.db_name=ORCL\n*.db_create_file_dest='/u03/oradata'\n")
	if rep := runArt(t, id, s, set, DBOracle); len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Current, "rotational disks (sda) while this host has flash (nvme0n1)") {
		t.Fatalf("%+v", rep)
	}
	// ASM: could not check; no artifacts: not applicable; DSS: not applicable (temp files unknown).
	if rep := runArt(t, id, layoutHost(), asmRedoArtifacts(), DBOracle); len(rep.CannotCheck) != 1 || !strings.Contains(rep.CannotCheck[0].Reason, "ASM disk group REDO") {
		t.Fatalf("%+v", rep)
	}
	if rep := runArt(t, id, layoutHost(), nil, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	r, _ := Lookup(id)
	if rep := RunRules([]Rule{r}, &Input{Snap: layoutHost(), Workload: WorkloadDSS, DB: DBOracle, Artifacts: set}); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
}
