package facts

import (
	"strconv"
	"strings"
	"testing"
)

func TestSCSIHostOf(t *testing.T) {
	for in, want := range map[string]int{
		"../devices/pci0000:00/0000:00:05.0/0000:11:00.0/host3/rport-3:0-5/target3:0:5/3:0:5:0/block/sdo": 3,
		"../devices/pci0000-3a/0000-3a-00.0/0000-3b-00.0/host12/target12-0-1/12-0-1-0/block/sdb":          12,
	} {
		if h, ok := scsiHostOf(in); !ok || h != want {
			t.Errorf("%s: %d %v", in, h, ok)
		}
	}
	for _, in := range []string{"../devices/virtual/block/dm-0", "../devices/pci0000:00/0000:00:1f.2/ata1/hostx/block/sda", ""} {
		if h, ok := scsiHostOf(in); ok {
			t.Errorf("%s: host %d", in, h)
		}
	}
}

func TestReadSCSIHosts(t *testing.T) {
	c := collectorA(fakeRootA(t, map[string]string{
		"/sys/class/scsi_host/host0/can_queue":    "31\n",
		"/sys/class/scsi_host/host0/proc_name":    "ahci\n",
		"/sys/class/scsi_host/host10/can_queue":   "2048\n",
		"/sys/class/scsi_host/host10/proc_name":   "qla2xxx\n",
		"/sys/class/scsi_host/host10/cmd_per_lun": "3\n",
		"/sys/class/scsi_host/host2/proc_name":    "megaraid_sas\n",
		"/sys/class/scsi_host/README":             "x\n",
	}))
	readSCSIHosts(c)
	h := c.Snap.Storage.SCSIHosts
	if len(h) != 3 || h[0].Host != 0 || *h[0].CanQueue != 31 || h[1].Host != 2 || h[1].CanQueue != nil || h[2].Host != 10 ||
		h[2].Driver != "qla2xxx" || *h[2].CmdPerLun != 3 {
		t.Fatalf("%+v", h)
	}
	if a := absenceA(c, "storage.scsi_hosts[host2].can_queue"); a == nil {
		t.Fatalf("%+v", c.Snap.Absent)
	}
	// No SCSI host at all: an empty list, not an absence (git and sosreports keep no empty class directory).
	none := collectorA(fakeRootA(t, map[string]string{"/sys/class/net/": ""}))
	readSCSIHosts(none)
	if len(none.Snap.Absent) != 0 || len(none.Snap.Storage.SCSIHosts) != 0 {
		t.Fatalf("%+v", none.Snap)
	}
}

func FuzzParseSCSIHostName(f *testing.F) {
	f.Add("host3")
	f.Add("host")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSCSIHostName(s)
		if err == nil && (n < 0 || strconv.Itoa(n) != strings.TrimPrefix(strings.TrimSpace(s), "host")) {
			t.Fatalf("%q → %d", s, n)
		}
	})
}
