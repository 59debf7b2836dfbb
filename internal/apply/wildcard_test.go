package apply

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

// A SCSI cache_type key names the disk's scsi_disk entry with "*" (the
// snapshot does not keep the SCSI address): apply resolves it to the one
// entry, journals the real path, and rollback restores it.
func TestApplyResolvesWildcard(t *testing.T) {
	root := cgFixture(t, "laptop-2s")
	o := opts(root)
	o.AcceptRisk = true
	key := "/sys/block/sda/device/scsi_disk/*/cache_type"
	before := read(t, root, "sys/block/sda/device/scsi_disk/0-0-0-0/cache_type")
	cs := []change.Change{{Kind: change.Sysfs, Key: key, Value: "write through", Rule: "io.cache-type-write-through", Risk: "data loss without a non-volatile cache"}}
	res, err := Apply(cs, o)
	if err != nil || statuses(res) != "applied" {
		t.Fatalf("apply: %v %s %+v", err, statuses(res), res.Items)
	}
	if p := res.Items[0].Path; !strings.HasSuffix(p, "/scsi_disk/0-0-0-0/cache_type") {
		t.Errorf("journaled path %q, want the resolved one", p)
	}
	if got := read(t, root, "sys/block/sda/device/scsi_disk/0-0-0-0/cache_type"); got != "write through\n" {
		t.Errorf("cache_type = %q", got)
	}
	if rb, err := Rollback("", o); err != nil || rb.Failed() != 0 {
		t.Fatalf("rollback: %v %+v", err, rb)
	}
	if got := read(t, root, "sys/block/sda/device/scsi_disk/0-0-0-0/cache_type"); got != before {
		t.Errorf("after rollback %q, want %q", got, before)
	}
	// A disk without that entry: absent, nothing written; a bad pattern refused.
	res, _ = Apply([]change.Change{{Kind: change.Sysfs, Key: "/sys/block/sdz/device/scsi_disk/*/cache_type", Value: "x"}}, o)
	if statuses(res) != "absent" {
		t.Errorf("missing disk: %s", statuses(res))
	}
	res, _ = Apply([]change.Change{{Kind: change.Sysfs, Key: "/sys/block/sda/device/scsi_disk/0*/cache_type", Value: "x"}}, o)
	if statuses(res) != "failed" {
		t.Errorf("partial wildcard: %s", statuses(res))
	}
}
