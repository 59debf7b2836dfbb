package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestTHPEnabled(t *testing.T) {
	const id = "memory.thp-enabled"
	thp := func(mode, kernel string) Input {
		s := host()
		s.Memory.THP.Enabled = ptr(mode)
		s.Host.Kernel = kernel
		return Input{Snap: s}
	}
	t.Run("always on an old kernel with Oracle: never", func(t *testing.T) {
		in := thp("always", "3.10.0-1160.el7.x86_64")
		f := fires(t, id, in.Snap, WorkloadOLTP, DBOracle)
		wantChange(t, f, change.Sysfs, "/sys/kernel/mm/transparent_hugepage/enabled", firstWord(f.Recommended), "-")
		wantChange(t, f, change.BootArg, "transparent_hugepage", firstWord(f.Recommended), "-")
		if f.Recommended != "never" || f.Severity != SevWarning || f.Fix.Runtime[0] != "echo never > /sys/kernel/mm/transparent_hugepage/enabled" ||
			f.Title != "Transparent hugepages are enabled for every process" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("always on a new kernel: madvise", func(t *testing.T) {
		in := thp("always", "5.15.0-200.el9uek.x86_64")
		if f := fires(t, id, in.Snap, WorkloadOLTP, DBOracle); f.Recommended != "madvise (or never)" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("madvise with Oracle on 4.18: info, titled for madvise", func(t *testing.T) {
		in := thp("madvise", "4.18.0-513.el8.x86_64")
		if f := fires(t, id, in.Snap, WorkloadOLTP, DBOracle); f.Severity != SevInfo || strings.Contains(f.Title, "every process") ||
			!strings.Contains(f.Title, "madvise") {
			t.Fatalf("%+v", f)
		}
		fires(t, id, thp("madvise", "5.13.0-1.x86_64").Snap, WorkloadOLTP, DBOracle)
	})
	t.Run("madvise with Oracle on RHEL 9's 5.14 and UEK7's 5.15 passes", func(t *testing.T) {
		quiet(t, id, thp("madvise", "5.14.0-427.13.1.el9_4.x86_64").Snap, WorkloadOLTP, DBOracle)
		quiet(t, id, thp("madvise", "5.15.0-200.131.27.el9uek.x86_64").Snap, WorkloadOLTP, DBOracle)
	})
	t.Run("madvise at run time: the boot argument held, or pending when the boot line lacks it", func(t *testing.T) {
		// After an apply wrote madvise the rule passes; the boot line must
		// still keep it (the plan persists the desired state).
		in := thp("madvise", "5.14.0-427.13.1.el9_4.x86_64")
		rep := quiet(t, id, in.Snap, WorkloadOLTP, DBOracle)
		if len(rep.Unbooted) != 1 || rep.Unbooted[0].Key != "transparent_hugepage" || rep.Unbooted[0].Value != "madvise" || rep.Unbooted[0].Rule != id {
			t.Fatalf("unbooted %+v", rep.Unbooted)
		}
		for _, h := range rep.Holds {
			if h.Kind == change.BootArg {
				t.Fatalf("held without the boot line having it: %+v", h)
			}
		}
		in.Snap.Host.CmdlineArgs = map[string]string{"transparent_hugepage": "madvise"}
		rep = quiet(t, id, in.Snap, WorkloadOLTP, DBOracle)
		held := false
		for _, h := range rep.Holds {
			held = held || h.Kind == change.BootArg && h.Key == "transparent_hugepage" && h.Value == "madvise"
		}
		if len(rep.Unbooted) != 0 || !held {
			t.Fatalf("on the boot line: unbooted %+v, holds %+v", rep.Unbooted, rep.Holds)
		}
	})
	t.Run("shmem_enabled that backs shared memory with THP", func(t *testing.T) {
		for _, mode := range []string{"always", "within_size", "force"} {
			in := thp("never", "5.14.0-427.el9.x86_64")
			in.Snap.Memory.THP.ShmemEnabled = ptr(mode)
			in.Snap.Memory.Meminfo = map[string]int64{"ShmemHugePages": 4 << 20}
			f := fires(t, id, in.Snap, WorkloadOLTP, DBPostgres)
			wantChange(t, f, change.Sysfs, "/sys/kernel/mm/transparent_hugepage/shmem_enabled", "never", mode)
			if f.Setting != "/sys/kernel/mm/transparent_hugepage/shmem_enabled" || !strings.Contains(f.Why, "Since Linux 4.8") ||
				!strings.Contains(f.Evidence, "ShmemHugePages 4.0 GiB") || !strings.Contains(f.Title, "shared memory") {
				t.Fatalf("%s: %+v", mode, f)
			}
		}
		for _, mode := range []string{"never", "advise", "deny"} {
			in := thp("never", "5.14.0-427.el9.x86_64")
			in.Snap.Memory.THP.ShmemEnabled = ptr(mode)
			quiet(t, id, in.Snap, WorkloadOLTP, DBPostgres)
		}
		// always plus shmem: both findings; the always one says THP backs the shared memory too.
		in := thp("always", "6.8.0-45-generic")
		in.Snap.Memory.THP.ShmemEnabled = ptr("always")
		rep := run(t, id, in.Snap, WorkloadOLTP, DBOracle)
		if len(rep.Findings) != 2 || !strings.Contains(rep.Findings[0].Why+rep.Findings[1].Why, "THP backs this host's shared memory too") {
			t.Fatalf("%+v", rep.Findings)
		}
	})
	t.Run("madvise on a new kernel or for PostgreSQL passes", func(t *testing.T) {
		in := thp("madvise", "6.8.0-45-generic")
		quiet(t, id, in.Snap, WorkloadOLTP, DBOracle)
		in = thp("madvise", "4.18.0-513.el8.x86_64")
		quiet(t, id, in.Snap, WorkloadOLTP, DBPostgres)
		in = thp("never", "3.10.0")
		quiet(t, id, in.Snap, WorkloadOLTP, DBOracle)
	})
	t.Run("absent: cannot check", func(t *testing.T) {
		s := host()
		absent(s, "memory.thp.enabled", "not present on this host")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "memory.thp.enabled: not present")
	})
}
