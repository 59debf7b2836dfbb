package rules

import (
	"strings"
	"testing"
)

func TestIOMultipathRRMinIORq(t *testing.T) {
	const id = "io.multipath-rr-min-io-rq"
	s := sanHost()
	s.Storage.MultipathConf = map[string]map[string]string{
		"defaults":   {"user_friendly_names": "yes", "path_selector": "round-robin 0"},
		"devices[0]": {"vendor": "3PARdata", "product": "VV", "rr_min_io_rq": "100"},
		"devices[1]": {"vendor": "NETAPP", "product": "LUN.*", "path_selector": "service-time 0", "rr_min_io_rq": "100"},
		"devices[2]": {"vendor": "EMC", "product": "SYMMETRIX", "rr_min_io": "1000"},
	}
	rep := run(t, id, s, WorkloadOLTP, DBOracle)
	if len(rep.Findings) != 2 {
		t.Fatalf("%+v", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Setting != "/etc/multipath.conf devices[0] rr_min_io_rq" || f.Current != "100" || !strings.Contains(f.Evidence, `"round-robin 0" (from defaults)`) {
		t.Fatalf("%+v", f)
	}
	if len(f.Fix.Edits) != 1 || f.Fix.Edits[0].String() != `edit /etc/multipath.conf: set devices { device { vendor "3PARdata" product "VV" rr_min_io_rq 1 } }, then run multipathd reconfigure` {
		t.Fatalf("%+v", f.Fix)
	}
	if !strings.Contains(rep.Findings[1].Current, "rr_min_io 1000 is ignored") {
		t.Fatalf("%+v", rep.Findings[1])
	}
	s.Storage.MultipathConf["devices[0]"]["rr_min_io_rq"] = "1"
	delete(s.Storage.MultipathConf["devices[2]"], "rr_min_io")
	quiet(t, id, s, WorkloadOLTP, DBOracle)

	s.Storage.MultipathConf["overrides"] = map[string]string{"rr_min_io_rq": "10"}
	// defaults, devices[0] and [2]; [1] is service-time. The fix edits overrides.
	if rep := run(t, id, s, WorkloadOLTP, DBOracle); len(rep.Findings) != 3 || rep.Findings[1].Fix.Edits[0].Edit != "set overrides { rr_min_io_rq 1 }" {
		t.Fatalf("overrides: %+v", rep.Findings)
	}

	s = sanHost()
	absent(s, "storage.multipath_conf", "malformed: line 7: section not closed")
	cannot(t, id, s, WorkloadOLTP, DBOracle, "not closed")

	s = host()
	if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal(rep)
	}
}
