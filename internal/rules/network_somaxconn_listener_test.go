package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/change"
)

const listenerOra = `LISTENER =
  (DESCRIPTION_LIST =
    (DESCRIPTION =
      (ADDRESS = (PROTOCOL = TCP)(HOST = db1)(PORT = 1521)(QUEUESIZE = 2048))
    )
  )
`

func TestNetSomaxconnListener(t *testing.T) {
	const id = "network.somaxconn-listener"
	runArt := func(sysctl string, set *artifacts.Set, db string) Report {
		s := netHost()
		s.Sysctl["net.core.somaxconn"] = sysctl
		r, _ := Lookup(id)
		return RunRules([]Rule{r}, &Input{Snap: s, Workload: WorkloadOLTP, DB: db, Artifacts: set})
	}
	set := &artifacts.Set{}
	if errs := set.Add("listener.ora", []byte(listenerOra)); len(errs) > 0 || len(set.Listeners) != 1 {
		t.Fatalf("%v %+v", errs, set)
	}
	rep := runArt("1024", set, DBOracle)
	if len(rep.Findings) != 1 {
		t.Fatalf("%+v", rep)
	}
	f := rep.Findings[0]
	wantChange(t, f, change.Sysctl, "net.core.somaxconn", "2048", "1024")
	if f.Severity != SevWarning || f.Recommended != "≥ 2048" || !strings.Contains(f.Evidence, "listener.ora:4 LISTENER QUEUESIZE = 2048") {
		t.Fatalf("%+v", f)
	}
	if rep := runArt("4096", set, DBOracle); len(rep.Findings) != 0 {
		t.Fatalf("%+v", rep.Findings)
	}

	// A CRS-managed listener without QUEUESIZE asks for Oracle Net's default
	// 128: somaxconn 128 holds it (no threshold of dbhost's own), 100 does not.
	crs := &artifacts.Set{}
	crs.Add("listener.ora", []byte("LISTENER_SCAN1 = (DESCRIPTION = (ADDRESS = (PROTOCOL = IPC)(KEY = LISTENER_SCAN1)))\nENABLE_GLOBAL_DYNAMIC_ENDPOINT_LISTENER_SCAN1 = ON\n"))
	if rep := runArt("128", crs, DBOracle); len(rep.Findings) != 0 || len(rep.Passed) != 1 {
		t.Fatalf("%+v", rep)
	}
	if rep := runArt("100", crs, DBOracle); len(rep.Findings) != 1 || rep.Findings[0].Recommended != "≥ 128" ||
		!strings.Contains(rep.Findings[0].Why, "srvctl") || !strings.Contains(rep.Findings[0].Evidence, "Oracle Net default 128") {
		t.Fatalf("%+v", rep)
	}
	// Oracle without listener.ora: the default queue; other databases are out of scope.
	if rep := runArt("128", nil, DBOracle); len(rep.Findings) != 0 {
		t.Fatalf("%+v", rep.Findings)
	}
	if rep := runArt("64", nil, DBOracle); len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Evidence, "no listener.ora given") {
		t.Fatalf("%+v", rep.Findings)
	}
	if rep := runArt("64", nil, DBPostgres); len(rep.Findings) != 0 || len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	if rep := runArt("64", nil, DBNone); len(rep.Findings) != 0 {
		t.Fatalf("%+v", rep.Findings)
	}

	s := netHost()
	delete(s.Sysctl, "net.core.somaxconn")
	absent(s, "sysctl.net.core.somaxconn", "permission denied")
	cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
}
