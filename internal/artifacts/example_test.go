package artifacts_test

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// Load recognises each file by content; the typed lists hold what parsed and
// the errors name file and line. A rule reads the last startup of an alert
// log, instance-scoped parameters, listener endpoints and rate limits.
func ExampleLoad() {
	set, errs := artifacts.Load([]string{
		"testdata/alert_ORCL.log", "testdata/initORCL.ora", "testdata/listener.ora", "testdata/srvctl_config_service.txt",
	})
	for _, e := range errs {
		fmt.Println("error:", e)
	}
	for _, f := range set.Files {
		fmt.Println(f.Path, "is", f.Kind)
	}

	st := set.AlertLogs[0].Last()
	fmt.Println("version", st.Version, "NUMA nodes", *st.NUMA.Nodes, "Oracle NUMA enabled", *st.NUMA.Enabled)
	row := st.SGA.PageSizes[0]
	fmt.Printf("SGA %dK pages: available %d, expected %d, allocated %d\n", row.PageSizeKB, *row.Available, *row.Expected, *row.Allocated)

	p := set.Params[0]
	for _, sid := range p.SIDs() {
		cpu, _ := p.Get(sid, "cpu_count")
		pig, ok := p.Get(sid, "parallel_instance_group")
		fmt.Printf("%s: cpu_count=%s parallel_instance_group=%q (set: %v)\n", sid, cpu, pig, ok)
	}

	l := set.Listeners[0]
	crs, why := l.CRSManaged()
	for _, r := range l.RateLimits("LISTENER") {
		fmt.Printf("%s:%d: %s = %s (CRS-managed: %v, %s)\n", l.File, r.Line, r.Key, r.Value, crs, why)
	}
	for _, s := range set.Services {
		fmt.Println("service", s.Name, "preferred", s.Preferred, "available", s.Available)
	}
	// Output:
	// testdata/alert_ORCL.log is oracle-alert-log
	// testdata/initORCL.ora is oracle-init
	// testdata/listener.ora is listener-ora
	// testdata/srvctl_config_service.txt is srvctl-service
	// version 12.1.0.2.0 NUMA nodes 8 Oracle NUMA enabled true
	// SGA 2048K pages: available 1536000, expected 1077250, allocated 1077250
	// BDT12c1_1: cpu_count=6 parallel_instance_group="BDT_PREF" (set: true)
	// BDT12c1_2: cpu_count=2 parallel_instance_group="" (set: false)
	// testdata/listener.ora:7: RATE_LIMIT = yes (CRS-managed: true, SCAN listener entry LISTENER_SCAN1)
	// testdata/listener.ora:9: RATE_LIMIT = 10 (CRS-managed: true, SCAN listener entry LISTENER_SCAN1)
	// testdata/listener.ora:26: CONNECTION_RATE_LISTENER = 10 (CRS-managed: true, SCAN listener entry LISTENER_SCAN1)
	// service BDT_PREF preferred [BDT12c1_1] available [BDT12c1_2]
	// service BDT_BOTH preferred [BDT12c1_1 BDT12c1_2] available []
}
