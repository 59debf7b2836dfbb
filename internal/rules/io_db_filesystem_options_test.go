package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestIODBFilesystemOptions(t *testing.T) {
	const id = "io.db-filesystem-options"
	quiet(t, id, sanHost(), WorkloadOLTP, DBOracle) // /u02 xfs noatime

	s := sanHost()
	s.Storage.Mounts[1].Options = []string{"rw", "nobarrier"}
	rep := run(t, id, s, WorkloadOLTP, DBOracle)
	if len(rep.Findings) != 2 || rep.Findings[0].Severity != SevWarning || rep.Findings[0].Setting != "mount:/u02 nobarrier" ||
		!strings.Contains(rep.Findings[0].Why, "data loss") || rep.Findings[1].Setting != "mount:/u02 atime" {
		t.Fatalf("%+v", rep.Findings)
	}
	// Each finding cites its own sources: noatime is 004's mount-option table, barriers 000 and 003.
	if a := rep.Findings[1].Sources; len(a) != 1 || a[0].Doc != Seed004 || !strings.Contains(a[0].Quote, "noatime") {
		t.Fatalf("atime sources %+v", a)
	}
	if b := rep.Findings[0].Sources; len(b) != 3 || b[0].Doc != Seed003 || b[2].Section != "WARNING" {
		t.Fatalf("barrier sources %+v", b)
	}

	// A PostgreSQL data directory on btrfs, found from the postmaster.
	s = sanHost()
	s.Storage.Mounts = append(s.Storage.Mounts, snapshot.Mount{Device: "/dev/sda3", Path: "/srv/pg", FSType: "btrfs", Options: []string{"rw", "relatime"}})
	s.Processes = []snapshot.Process{{PID: 10, Comm: "postgres", Engine: "postgres", Role: "postmaster", Instance: "/srv/pg/16/data"}}
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Setting != "mount:/srv/pg fstype" || f.Current != "btrfs" {
		t.Fatalf("%+v", f)
	}

	s = host()
	s.Storage.Mounts = []snapshot.Mount{{Device: "/dev/sda2", Path: "/", FSType: "xfs"}}
	if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal(rep)
	}
	s.Storage.Mounts = []snapshot.Mount{}
	absent(s, "storage.mounts", "permission denied")
	cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
}
