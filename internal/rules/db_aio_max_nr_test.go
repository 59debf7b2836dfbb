package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAIOMaxNr(t *testing.T) {
	const id = "db.aio-max-nr"
	mk := func(max, used string) *snapshot.Snapshot {
		s := host()
		s.Sysctl["fs.aio-max-nr"] = max
		if used != "" {
			s.Sysctl["fs.aio-nr"] = used
		}
		return s
	}
	// The kernel default 65536 on an Oracle host.
	f := fires(t, id, mk("65536", "1024"), WorkloadOLTP, DBOracle)
	if f.Severity != SevWarning || f.Recommended != "≥ 1048576" || !strings.Contains(f.Why, "1048576") || !strings.Contains(f.Why, "EAGAIN") ||
		len(f.Changes) != 1 || f.Changes[0].Kind != change.Sysctl || f.Changes[0].Key != "fs.aio-max-nr" || f.Changes[0].Value != "1048576" || f.Changes[0].Current != "65536" {
		t.Fatalf("%+v", f)
	}
	// The same on a PostgreSQL host with little in use: fine.
	quiet(t, id, mk("65536", "1024"), WorkloadOLTP, DBPostgres)
	quiet(t, id, mk("1048576", "4096"), WorkloadOLTP, DBOracle)
	// 90 % in use on any database: fires with room to double.
	f = fires(t, id, mk("65536", "58982"), WorkloadOLTP, DBMySQL)
	if f.Severity != SevWarning || f.Changes[0].Value != "131072" || !strings.Contains(f.Current, "90 %") {
		t.Fatalf("%+v", f)
	}
	// 99 % in use on an Oracle host: critical, at least the Oracle minimum.
	f = fires(t, id, mk("1048576", "1040000"), WorkloadOLTP, DBOracle)
	if f.Severity != SevCritical || f.Changes[0].Value != "2097152" {
		t.Fatalf("%+v", f)
	}
	// aio-nr unknown: only the minimum is judged.
	quiet(t, id, mk("1048576", ""), WorkloadOLTP, DBOracle)
	fires(t, id, mk("65536", ""), WorkloadOLTP, DBOracle)
	// Not an integer, or absent: cannot check.
	cannot(t, id, mk("lots", "1"), WorkloadOLTP, DBOracle, "not an integer")
	na := host()
	absent(na, "sysctl.fs.aio-max-nr", "not present on this host")
	cannot(t, id, na, WorkloadOLTP, DBOracle, "not present")
}
