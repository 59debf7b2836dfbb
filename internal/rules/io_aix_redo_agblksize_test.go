package rules

import (
	"strings"
	"testing"
)

func TestAIXRedoAgblksize(t *testing.T) {
	const id = "io.aix-redo-agblksize"
	t.Run("redo on agblksize 4096 fires", func(t *testing.T) {
		s := aixHost()
		s.AIX.Filesystems[3].AGBlkSize = ptr(int64(4096))
		rep := runArt(t, id, s, artSet(t, "alert_ORCL.log="+aixAlert), DBOracle)
		fs := artFires(t, rep)
		if len(fs) != 1 || fs[0].Setting != "agblksize:/oraredo" || !strings.Contains(fs[0].Why, "28 ms") ||
			!strings.Contains(fs[0].Evidence, "alert_ORCL.log:8 redo member") || !strings.Contains(fs[0].Fix.Runtime[0], "agblksize=512") {
			t.Fatalf("%+v", fs)
		}
	})
	t.Run("found by name without artifacts", func(t *testing.T) {
		s := aixHost()
		s.AIX.Filesystems[3].AGBlkSize = ptr(int64(1024))
		fires(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("agblksize 512 passes", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadOLTP, DBOracle)
	})
	t.Run("lsfs -q missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.Filesystems = nil
		aixAbsent(s, "aix.filesystems", "commands/lsfs_-q", "not present on this host: lsfs: not found (exit 127)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.filesystems: not present")
	})
}
