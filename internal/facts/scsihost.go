package facts

import (
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// The SCSI host adapters and how many commands each takes in flight
// (/sys/class/scsi_host/hostN/can_queue): 004's HBA queue (num_cmd_elems)
// on Linux.
func init() { register("scsi-hosts", StageSources, readSCSIHosts, "storage.scsi_hosts") }

const sysSCSIHost = "/sys/class/scsi_host"

// parseSCSIHostName parses a scsi_host entry name, "host3" → 3.
func parseSCSIHostName(s string) (int, error) {
	n, ok := strings.CutPrefix(strings.TrimSpace(s), "host")
	if !ok || n == "" || !allDigitsFacts(n) || len(n) > 9 || len(n) > 1 && n[0] == '0' {
		return 0, parseErr(0, "expected hostN, got %q", trunc(s, 40))
	}
	return strconv.Atoi(n)
}

// scsiHostOf finds the SCSI host in a block device's sysfs path (the
// /sys/block/NAME link target: ".../host3/rport-3:0-5/target3:0:5/3:0:5:0/block/sdo").
func scsiHostOf(target string) (int, bool) {
	for _, part := range strings.Split(target, "/") {
		if h, err := parseSCSIHostName(part); err == nil {
			return h, true
		}
	}
	return 0, false
}

func allDigitsFacts(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func readSCSIHosts(c *Collector) {
	names, err := c.Root.ReadDirNames(sysSCSIHost)
	if errors.Is(err, fs.ErrNotExist) {
		return // no SCSI host adapter (the class directory is empty, or absent from a captured tree)
	}
	if err != nil {
		c.Absent("storage.scsi_hosts", sysSCSIHost, err)
		return
	}
	var out []snapshot.SCSIHost
	for _, n := range names {
		h, err := parseSCSIHostName(n)
		if err != nil {
			continue
		}
		dir := sysSCSIHost + "/" + n
		out = append(out, snapshot.SCSIHost{
			Host:      h,
			Driver:    attrQuiet(c, dir+"/proc_name"),
			CanQueue:  attrInt(c, "storage.scsi_hosts["+n+"].can_queue", dir+"/can_queue"),
			CmdPerLun: attrInt(c, "", dir+"/cmd_per_lun"),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	c.Snap.Storage.SCSIHosts = out
}
