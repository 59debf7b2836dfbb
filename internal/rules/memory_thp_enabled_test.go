package rules

import (
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
		if f.Recommended != "never" || f.Severity != SevWarning || f.Fix.Runtime[0] != "echo never > /sys/kernel/mm/transparent_hugepage/enabled" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("always on a new kernel: madvise", func(t *testing.T) {
		in := thp("always", "5.15.0-200.el9uek.x86_64")
		if f := fires(t, id, in.Snap, WorkloadOLTP, DBOracle); f.Recommended != "madvise (or never)" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("madvise with Oracle on 4.18: info", func(t *testing.T) {
		in := thp("madvise", "4.18.0-513.el8.x86_64")
		if f := fires(t, id, in.Snap, WorkloadOLTP, DBOracle); f.Severity != SevInfo {
			t.Fatalf("%+v", f)
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
