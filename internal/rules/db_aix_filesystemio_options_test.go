package rules

import (
	"strings"
	"testing"
)

func TestAIXFilesystemioOptions(t *testing.T) {
	const id = "db.aix-filesystemio-options"
	t.Run("SETALL with cio mounts: info, ASYNCH advised", func(t *testing.T) {
		fs := artFires(t, runArt(t, id, aixHost(), artSet(t, "alert_ORCL.log="+aixAlert), DBOracle))
		if len(fs) != 1 || fs[0].Severity != SevInfo || fs[0].Setting != "ORCL:filesystemio_options" ||
			!strings.Contains(fs[0].Evidence, "cio mounts: /oradata, /oraredo") {
			t.Fatalf("%+v", fs)
		}
	})
	t.Run("DIRECTIO and disk_asynch_io FALSE: warnings", func(t *testing.T) {
		log := strings.Replace(aixAlert, `"SETALL"`, "\"DIRECTIO\"\n  disk_asynch_io           = FALSE", 1)
		fs := artFires(t, runArt(t, id, aixHost(), artSet(t, "alert_ORCL.log="+log), DBOracle))
		if len(fs) != 2 || fs[0].Severity != SevWarning || fs[1].Severity != SevWarning {
			t.Fatalf("%+v", fs)
		}
	})
	t.Run("ASYNCH passes", func(t *testing.T) {
		log := strings.Replace(aixAlert, `"SETALL"`, `"ASYNCH"`, 1)
		if rep := runArt(t, id, aixHost(), artSet(t, "alert_ORCL.log="+log), DBOracle); len(rep.Findings) != 0 || len(rep.Passed) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("no artifact: not applicable", func(t *testing.T) {
		if rep := quiet(t, id, aixHost(), WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("mount missing: the finding says no cio mount is known", func(t *testing.T) {
		s := aixHost()
		s.AIX.Mounts = nil
		fs := artFires(t, runArt(t, id, s, artSet(t, "alert_ORCL.log="+aixAlert), DBOracle))
		if !strings.Contains(fs[0].Evidence, "no data/redo file system known") {
			t.Fatalf("%+v", fs)
		}
	})
}
