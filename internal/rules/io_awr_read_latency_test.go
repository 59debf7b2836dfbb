package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAWRReadLatency(t *testing.T) {
	const id = "io.awr-read-latency"
	rac := awrTestReport(t, "awrrpt_2_2201_2202_19c_rac.html") // db file sequential read 4.21 ms, 40.1 % of DB time
	awrOutcome(t, id, "cannot", "db file sequential read averages 4.21 ms: slow for flash (2 ms), not for disks", nil, rac)

	flash := host()
	ssd := false
	flash.Storage.Devices = []snapshot.BlockDevice{{Name: "nvme0n1", Kind: "nvme", Rotational: &ssd}, {Name: "nvme1n1", Kind: "nvme", Rotational: &ssd}}
	f := awrFires(t, id, flash, rac)
	if f.Current != "4.21 ms on average" || f.Recommended != "at most 2 ms on flash (SSD, NVMe)" {
		t.Errorf("%+v", f)
	}
	wantIn(t, "evidence", f.Evidence, "db file sequential read: 2061337 waits", "this host's devices: nvme0n1 (nvme), nvme1n1 (nvme)",
		"the report was taken on host racnode2, the facts below are of db1")

	disks := host()
	rot := true
	disks.Storage.Devices = []snapshot.BlockDevice{{Name: "sda", Kind: "disk", Rotational: &rot}, {Name: "nvme0n1", Kind: "nvme", Rotational: &ssd}}
	awrOutcome(t, id, "passed", "db file sequential read 4.21 ms", disks, rac)
	san := host()
	san.Storage.Devices = []snapshot.BlockDevice{{Name: "dm-0", Kind: "dm", Multipath: true, Slaves: []string{"sdb", "sdc"}},
		{Name: "sdb", Kind: "disk", Rotational: &rot}, {Name: "sdc", Kind: "disk", Rotational: &rot}}
	awrOutcome(t, id, "passed", "4.21 ms", san, rac)

	// Slow for any device: fires without the host.
	avg, pct := 15.2, 35.0
	w := int64(1000000)
	slow := &artifacts.AWRReport{File: "slow.txt", TopEvents: []artifacts.AWREvent{{Event: "db file sequential read", Waits: &w, TimeS: ptr(15200.0), AvgMS: &avg, PctDBTime: &pct}}}
	f = awrFires(t, id, nil, slow)
	wantIn(t, "evidence", f.Evidence, "no host given", "flash would make the limit 2 ms")
	// Statspack 9i prints no average: computed from time and waits (5.66 ms).
	awrOutcome(t, id, "cannot", "db file sequential read averages 5.66 ms", nil, awrTestReport(t, "sp_8811_8812_9208.lst"))
	awrOutcome(t, id, "passed", "db file sequential read 1 ms", nil, awrTestReport(t, "awrrpt_1_3301_3302_10205.html"))
	awrOutcome(t, id, "passed", "no read event at 5 %", nil, awrTestReport(t, "awrrpt_1_30_31_12102_caging.txt"))
}
