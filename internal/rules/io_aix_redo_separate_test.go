package rules

import (
	"strings"
	"testing"
)

// 004's "if possible separate redologs (+archivelogs)", at the file-system
// level of an AIX bundle.
func TestAIXRedoSeparate(t *testing.T) {
	const id = "io.aix-redo-separate"
	t.Run("redo on its own file system passes", func(t *testing.T) {
		rep := runArt(t, id, aixHost(), artSet(t, "alert_ORCL.log="+aixAlert), DBOracle)
		if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "redo logs on /oraredo") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("redo members on the data file system: info", func(t *testing.T) {
		alert := strings.ReplaceAll(aixAlert, "/oraredo/ORCL/redo01a.log", "/oradata/ORCL/redo01a.log")
		rep := runArt(t, id, aixHost(), artSet(t, "alert_ORCL.log="+alert), DBOracle)
		fs := artFires(t, rep)
		if len(fs) != 1 || fs[0].Setting != "mount:/oradata" || fs[0].Severity != SevInfo ||
			!strings.Contains(fs[0].Current, "data files and the redo logs") || !strings.Contains(fs[0].Evidence, "redo member /oradata/ORCL/redo01a.log") {
			t.Fatalf("%+v", fs)
		}
	})
	t.Run("archived logs on the data file system: info", func(t *testing.T) {
		alert := strings.ReplaceAll(aixAlert, "LOCATION=/oraarch/ORCL", "LOCATION=/oradata/arch")
		fs := artFires(t, runArt(t, id, aixHost(), artSet(t, "alert_ORCL.log="+alert), DBOracle))
		if len(fs) != 1 || !strings.Contains(fs[0].Current, "archived logs") {
			t.Fatalf("%+v", fs)
		}
	})
	t.Run("redo in ASM: could not check", func(t *testing.T) {
		alert := strings.ReplaceAll(aixAlert, "/oraredo/ORCL/redo01a.log", "+REDO/orcl/redo01a.log")
		s := aixHost()
		s.AIX.Mounts = s.AIX.Mounts[:3] // no file system named like redo
		rep := runArt(t, id, s, artSet(t, "alert_ORCL.log="+alert), DBOracle)
		if len(rep.CannotCheck) != 1 || !strings.Contains(rep.CannotCheck[0].Reason, "not both known") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("mount missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.Mounts = nil
		aixAbsent(s, "aix.mounts", "commands/mount", "failed: mount exited 1")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.mounts: failed")
	})
}
