package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// alert11203 is an alert log whose last startup is 11.2.0.3, the release of
// 004's "Various Findings" slowdown.
const alert11203 = "alert_ORCL.log=Starting ORACLE instance (normal)\nORACLE_SID = ORCL\n" +
	"Oracle Database 11g Enterprise Edition Release 11.2.0.3.0 - 64bit Production\nCompleted: ALTER DATABASE OPEN\n"

func TestAIXTerabyteSegments(t *testing.T) {
	const id = "memory.aix-terabyte-segments"
	tun := func(v int64) snapshot.AIXValue { return snapshot.AIXValue{Value: "x", Kind: "number", Number: &v} }
	level := func(s *snapshot.Snapshot, l string) { s.AIX.OSLevel = &l }
	t.Run("004: Oracle 11.2.0.3 with Terabyte segments before AIX 7.1 TL1 SP5: warning, shm_1tb_unsh_enable=0", func(t *testing.T) {
		s := aixHost()
		level(s, "7100-01-04-1216")
		s.AIX.Tunables.VMO["esid_allocator"] = tun(1)
		fs := artFires(t, runArt(t, id, s, artSet(t, alert11203), DBOracle))
		f := fs[0]
		if f.Severity != SevWarning || f.Setting != "vmo:shm_1tb_unsh_enable" || !f.RebootRequired ||
			!strings.Contains(f.Fix.Runtime[0], "vmo -r -o shm_1tb_unsh_enable=0") || !strings.Contains(f.Evidence, "Oracle 11.2.0.3.0") ||
			!strings.Contains(f.Recommended, "AIX 7.1 TL1 SP5") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("fixed in AIX 7.1 TL1 SP5: passes", func(t *testing.T) {
		s := aixHost()
		level(s, "7100-01-05-1228")
		s.AIX.Tunables.VMO["esid_allocator"] = tun(1)
		artQuiet(t, runArt(t, id, s, artSet(t, alert11203), DBOracle), "passed")
	})
	t.Run("the workaround in place (vmo -F -a shm_1tb_unsh_enable 0): passes", func(t *testing.T) {
		s := aixHost()
		level(s, "7100-00-03-1115")
		s.AIX.Tunables.VMO["esid_allocator"] = tun(1)
		s.AIX.Tunables.VMORestricted["shm_1tb_unsh_enable"] = tun(0)
		if r := artQuiet(t, runArt(t, id, s, artSet(t, alert11203), DBOracle), "passed"); !strings.Contains(r, "workaround") {
			t.Fatal(r)
		}
	})
	t.Run("AIX 6.1 with esid_allocator 0: info, enable it (004)", func(t *testing.T) {
		s := aixHost()
		level(s, "6100-09-12-1846")
		s.AIX.Tunables.VMO["esid_allocator"] = tun(0)
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Severity != SevInfo || f.Setting != "vmo:esid_allocator" || !strings.Contains(f.Fix.Runtime[0], "vmo -p -o esid_allocator=1") ||
			!strings.Contains(f.Risk, "11.2.0.3") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("AIX 6.1 under Oracle 11.2.0.3: enabling is not advised (it would trigger the slowdown)", func(t *testing.T) {
		s := aixHost()
		level(s, "6100-09-12-1846")
		s.AIX.Tunables.VMO["esid_allocator"] = tun(0)
		artQuiet(t, runArt(t, id, s, artSet(t, alert11203), DBOracle), "passed")
		// and following the info's fix on another host never lands here:
		// once esid_allocator is 1 under 11.2.0.3, the warning says so.
		s.AIX.Tunables.VMO["esid_allocator"] = tun(1)
		if fs := artFires(t, runArt(t, id, s, artSet(t, alert11203), DBOracle)); fs[0].Setting != "vmo:shm_1tb_unsh_enable" {
			t.Fatalf("%+v", fs)
		}
	})
	t.Run("AIX 6.1 without esid_allocator in vmo -a: could not check", func(t *testing.T) {
		s := aixHost()
		level(s, "6100-09-12-1846")
		delete(s.AIX.Tunables.VMO, "esid_allocator")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "esid_allocator")
	})
	t.Run("AIX 7.1 without esid_allocator read: on by default, never a warning from the default", func(t *testing.T) {
		s := aixHost()
		level(s, "7100-01-04-1216")
		delete(s.AIX.Tunables.VMO, "esid_allocator")
		fs := artFires(t, runArt(t, id, s, artSet(t, alert11203), DBOracle))
		if fs[0].Severity != SevInfo {
			t.Fatalf("%+v", fs[0])
		}
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("AIX 5.3: not applicable", func(t *testing.T) {
		s := aixHost()
		level(s, "5300-12-01-1016")
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
}
