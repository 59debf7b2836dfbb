package rules

import (
	"strings"
	"testing"
)

func TestAIXComputationalPages(t *testing.T) {
	const id = "memory.aix-computational-pages"
	t.Run("AIX 5.3 defaults page out the SGA: set them", func(t *testing.T) {
		s := aixHost()
		s.AIX.OSLevel = ptr("5300-12-04-1119")
		s.AIX.Tunables.VMO["minperm%"], s.AIX.Tunables.VMO["maxperm%"] = aixTun(20), aixTun(80)
		s.AIX.Tunables.VMO["maxclient%"], s.AIX.Tunables.VMO["lru_file_repage"] = aixTun(80), aixTun(1)
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		fix := strings.Join(f.Fix.Runtime, "\n")
		if !strings.Contains(f.Current, "minperm% 20 (want 3)") || !strings.Contains(fix, "vmo -p -o lru_file_repage=0") ||
			!strings.Contains(fix, "vmo -p -o minperm%=3") || strings.Contains(fix, "maxperm%") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("AIX 6.1 with a 5.3 leftover: back to the default", func(t *testing.T) {
		s := aixHost()
		s.AIX.OSLevel = ptr("6100-09-12-1846")
		s.AIX.Tunables.VMO["lru_file_repage"] = aixTun(1)
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if !strings.Contains(f.Fix.Runtime[0], "vmo -p -d lru_file_repage") || !strings.Contains(f.Why, "restricted") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("AIX 7.1 defaults pass", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadOLTP, DBOracle)
	})
	t.Run("AIX 6.1: lru_file_repage 1 read from vmo -F -a", func(t *testing.T) {
		s := aixHost()
		s.AIX.OSLevel = ptr("6100-09-12-1846")
		for _, k := range []string{"minperm%", "maxperm%", "maxclient%"} {
			delete(s.AIX.Tunables.VMO, k)
		}
		s.AIX.Tunables.VMORestricted["lru_file_repage"] = aixTun(1)
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Current != "lru_file_repage 1 (want 0) on AIX 6.1 TL9 SP12 (6100-09-12-1846)" || !strings.Contains(f.Evidence, "minperm% 3, maxperm% 90, maxclient% 90") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("AIX 6.1: the restricted defaults in vmo -F -a pass", func(t *testing.T) {
		s := aixHost()
		s.AIX.OSLevel = ptr("6100-09-12-1846")
		delete(s.AIX.Tunables.VMO, "minperm%")
		s.AIX.Tunables.VMORestricted["lru_file_repage"] = aixTun(0)
		s.AIX.VmstatV["minperm percentage"] = 20 // not read: vmo -F -a has the tunable itself
		rep := quiet(t, id, s, WorkloadOLTP, DBOracle)
		if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "lru_file_repage 0") || strings.Contains(rep.Passed[0].Reason, "not shown") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("AIX 6.1 without vmo -F -a: lru_file_repage taken as its default, said so", func(t *testing.T) {
		s := aixHost()
		s.AIX.OSLevel = ptr("6100-09-12-1846")
		s.AIX.Tunables.VMORestricted = nil
		aixAbsent(s, "aix.tunables.vmo_restricted", "commands/vmo_-F_-a", "not present in the bundle")
		rep := quiet(t, id, s, WorkloadOLTP, DBOracle)
		if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "lru_file_repage (taken as its default 0) not shown (restricted, listed by vmo -F -a: aix.tunables.vmo_restricted: not present in the bundle") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("restricted tunables hidden by vmo -a, without vmo -F -a, are read from vmstat -v", func(t *testing.T) {
		s := aixHost()
		for _, k := range []string{"minperm%", "maxperm%", "maxclient%"} {
			delete(s.AIX.Tunables.VMO, k)
		}
		s.AIX.Tunables.VMORestricted = nil
		s.AIX.VmstatV["maxclient percentage"] = 50
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if !strings.Contains(f.Current, "maxclient% 50 (want 90)") || !strings.Contains(f.Current, "AIX 7.1") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("vmo -a missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.Tunables.VMO = nil
		aixAbsent(s, "aix.tunables.vmo", "commands/vmo_-a", "failed: vmo -a exited 1")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "vmo -a exited 1")
	})
}
