package rules

import (
	"strings"
	"testing"
)

func TestIONrRequests(t *testing.T) {
	const id = "io.nr-requests"
	s := sanHost()
	rep := run(t, id, s, WorkloadOLTP, DBOracle)
	// sda (ssd), sdb, sdc (paths) have 256; dm-0 has 1024; NVMe with none is skipped.
	got := map[string]bool{}
	for _, f := range rep.Findings {
		got[f.Setting] = true
		if f.Recommended != "1024" || f.Current != "256" || !strings.Contains(f.Fix.Edits[0].Edit, `ATTR{queue/nr_requests}="1024"`) ||
			f.Fix.Edits[0].Then != UdevReload || (strings.Contains(f.Setting, "sdb") && (len(f.Fix.Runtime) != 2 || len(f.Fix.Edits) != 1)) {
			t.Fatalf("%+v", f)
		}
	}
	// The two paths of dm-0 are one finding.
	if len(got) != 2 || !got["/sys/block/{sdb,sdc}/queue/nr_requests"] || !got["/sys/block/sda/queue/nr_requests"] {
		t.Fatalf("findings %v", got)
	}
	for _, n := range []string{"sda", "sdb", "sdc"} {
		dev(t, s, n).NrRequests = i64(1024)
	}
	quiet(t, id, s, WorkloadOLTP, DBOracle)

	dev(t, s, "sda").NrRequests = nil
	absent(s, "storage.devices[sda].nr_requests", "malformed: line 1")
	s.Storage.Devices = s.Storage.Devices[2:4]
	cannot(t, id, s, WorkloadOLTP, DBOracle, "malformed")

	// A SATA SSD (vendor ATA) keeps its small queue.
	s = sanHost()
	s.Storage.Devices = s.Storage.Devices[3:4]
	s.Storage.Devices[0].Vendor = "ATA"
	if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal(rep)
	}
}
