package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAIXAIOServers(t *testing.T) {
	const id = "db.aix-aio-servers"
	tun := func(v int64) snapshot.AIXValue { return snapshot.AIXValue{Value: "x", Kind: "number", Number: &v} }
	t.Run("EAGAIN in the alert log fires a warning", func(t *testing.T) {
		log := aixAlert + "Tue Nov 24 03:00:00 2026\nWarning: lio_listio returned EAGAIN\nPerformance degradation may be seen.\n"
		fs := artFires(t, runArt(t, id, aixHost(), artSet(t, "alert_ORCL.log="+log), DBOracle))
		if len(fs) != 1 || fs[0].Setting != "aio:maxservers" || fs[0].Severity != SevWarning || fs[0].Recommended != "maxservers 60 per CPU" ||
			!strings.Contains(fs[0].Evidence, "alert_ORCL.log:10") || !strings.Contains(fs[0].Fix.Runtime[0], "ioo -p -o aio_maxservers=60") {
			t.Fatalf("%+v", fs)
		}
	})
	t.Run("004's formulas: few servers for many disks, a small queue", func(t *testing.T) {
		s := aixHost()
		s.AIX.Tunables.IOO["aio_maxservers"] = tun(1) // 10 x 4 disks / 32 CPUs = 2
		s.AIX.Tunables.IOO["aio_maxreqs"] = tun(256)  // 4 x 4 x 32 = 512 -> 4096
		rep := run(t, id, s, WorkloadOLTP, DBOracle)
		if len(rep.Findings) != 2 || rep.Findings[1].Recommended != "maxservers 2 per CPU" || rep.Findings[1].Severity != SevInfo ||
			!strings.Contains(rep.Findings[0].Recommended, "maxreqs 4096") {
			t.Fatalf("%+v", rep.Findings)
		}
	})
	t.Run("fsfastpath on, read from ioo -F -a (a restricted tunable): the server count is not judged", func(t *testing.T) {
		// aio_fsfastpath is restricted: ioo -a never lists it, ioo -F -a
		// does after "##Restricted tunables".
		s := aixHost()
		s.AIX.Tunables.IOO["aio_maxservers"] = tun(1)
		delete(s.AIX.Tunables.IOO, "aio_fsfastpath")
		s.AIX.Tunables.IOORestricted = map[string]snapshot.AIXValue{"aio_fsfastpath": tun(1)}
		rep := quiet(t, id, s, WorkloadOLTP, DBOracle)
		if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "aio_fsfastpath 1") || !strings.Contains(rep.Passed[0].Reason, "ioo -F -a") {
			t.Fatalf("%+v", rep.Passed)
		}
	})
	t.Run("fsfastpath on: the server count is not judged", func(t *testing.T) {
		s := aixHost()
		s.AIX.Tunables.IOO["aio_maxservers"] = tun(1)
		s.AIX.Tunables.IOO["aio_fsfastpath"] = tun(1)
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("AIX 5.3 reads aio0 and fixes with chdev", func(t *testing.T) {
		s := aixHost()
		s.AIX.OSLevel = ptr("5300-12-04-1119")
		n := func(v int64) snapshot.AIXAttr { return snapshot.AIXAttr{Value: "x", Kind: "number", Number: &v} }
		s.AIX.AIO0 = map[string]snapshot.AIXAttr{"maxservers": n(10), "maxreqs": n(512)}
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Setting != "aio:maxreqs" || !strings.Contains(f.Fix.Runtime[0], "chdev -l aio0 -a maxreqs=4096 -P") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("the defaults pass", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadOLTP, DBOracle)
	})
	t.Run("ioo -a missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.Tunables.IOO = nil
		aixAbsent(s, "aix.tunables.ioo", "commands/ioo_-a", "failed: ioo -a exited 1")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "ioo -a exited 1")
	})
}
