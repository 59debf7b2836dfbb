package rules

import (
	"strings"
	"testing"
)

// aixAlert is an alert log naming the redo members on /oraredo and the
// control files on /oradata (and the init.ora parameters).
const aixAlert = "Starting ORACLE instance (normal)\nORACLE_SID = ORCL\nSystem parameters with non-default values:\n" +
	"  control_files            = \"/oradata/ORCL/control01.ctl\", \"/oraredo/ORCL/control02.ctl\"\n" +
	"  filesystemio_options     = \"SETALL\"\n  log_archive_dest_1       = \"LOCATION=/oraarch/ORCL\"\n" +
	"Completed: ALTER DATABASE OPEN\n  Current log# 1 seq# 5 mem# 0: /oraredo/ORCL/redo01a.log\n"

func TestAIXOracleMountOptions(t *testing.T) {
	const id = "io.aix-oracle-mount-options"
	t.Run("data files mounted without cio fire a warning", func(t *testing.T) {
		s := aixHost()
		s.AIX.Mounts[2].Options = []string{"rw", "log=INLINE"}
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Setting != "mount:/oradata" || f.Severity != SevWarning || f.Recommended != "rw,log=INLINE,cio,noatime" ||
			!strings.Contains(f.Fix.Runtime[0], "chfs -a options=rw,cio,noatime /oradata") || !strings.Contains(f.Evidence, "named like Oracle data files") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("the artifacts name the file systems; archive without rbrw: info", func(t *testing.T) {
		s := aixHost()
		s.AIX.Mounts = append(s.AIX.Mounts, s.AIX.Mounts[1])
		s.AIX.Mounts[4].Path, s.AIX.Mounts[4].Device = "/oraarch", "/dev/oraarchlv"
		rep := runArt(t, id, s, artSet(t, "alert_ORCL.log="+aixAlert), DBOracle)
		fs := artFires(t, rep)
		if len(fs) != 1 || fs[0].Setting != "mount:/oraarch" || fs[0].Severity != SevInfo || !strings.Contains(fs[0].Recommended, "rbrw") ||
			!strings.Contains(fs[0].Evidence, "log_archive_dest_1") {
			t.Fatalf("%+v", fs)
		}
	})
	t.Run("ORACLE_HOME on a cio mount fires", func(t *testing.T) {
		s := aixHost()
		s.AIX.Mounts[1].Options = append(s.AIX.Mounts[1].Options, "cio")
		if f := fires(t, id, s, WorkloadOLTP, DBOracle); f.Setting != "mount:/u01" || !strings.Contains(f.Recommended, "cio option removed") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("004's options pass", func(t *testing.T) {
		if rep := quiet(t, id, aixHost(), WorkloadOLTP, DBOracle); len(rep.Passed) != 1 {
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
