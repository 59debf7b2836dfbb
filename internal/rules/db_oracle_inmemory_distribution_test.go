package rules

import (
	"strings"
	"testing"
)

// TestInMemoryOutcomes: one case per test of 001 (and the unset-parameter
// default wherever the service runs).
func TestInMemoryOutcomes(t *testing.T) {
	for _, c := range []struct {
		name  string
		c     imCase
		test  int
		fully bool
		where string
	}{
		{"1 pig not set", imCase{}, 1, false, "all instances"},
		{"1 pig not set, on available", imCase{RunsOnAvailable: true}, 1, false, "all instances"},
		{"2 pig on preferred, runs on preferred", imCase{PIGPreferred: true}, 2, true, "preferred"},
		{"3 pig on preferred, runs on available", imCase{PIGPreferred: true, RunsOnAvailable: true}, 3, false, "all instances"},
		{"3 remark 2: failover, instance 1 still down", imCase{PIGPreferred: true, RunsOnAvailable: true, PreferredDown: true}, 3, true, "available instance"},
		{"4 preferred down is not a state on the preferred", imCase{PIGPreferred: true, PIGAvailable: true, PreferredDown: true}, 4, true, "preferred"},
		{"4 pig on both, runs on preferred", imCase{PIGPreferred: true, PIGAvailable: true}, 4, true, "preferred"},
		{"5 pig on both, runs on available", imCase{PIGPreferred: true, PIGAvailable: true, RunsOnAvailable: true}, 5, true, "available"},
		{"6 preferred on both, pig on both", imCase{PreferredOnAll: true, PIGPreferred: true}, 6, false, "all instances"},
	} {
		o, ok := imDistribution(c.c)
		if !ok || o.Test != c.test || o.Fully != c.fully || !strings.Contains(o.Where, c.where) {
			t.Errorf("%s: %+v %v", c.name, o, ok)
		}
	}
	if _, ok := imDistribution(imCase{PIGAvailable: true}); ok {
		t.Error("parallel_instance_group on the available instance only is not one of 001's tests")
	}
}

func TestInMemoryDistribution(t *testing.T) {
	const id = "db.oracle-inmemory-distribution"
	// BDT_PREF preferred BDT12c1_1 / available BDT12c1_2, PIG on _1 only: Tests 2 and 3.
	fs := artFires(t, runArt(t, id, host(), artSet(t, "initBDT12c1-im.ora", "srvctl_config_service.txt"), DBOracle))
	f := fs[0]
	if len(fs) != 1 || f.Severity != SevWarning || !strings.Contains(f.Current, "Test 2") || !strings.Contains(f.Current, "Test 3") ||
		!strings.Contains(f.Evidence, "srvctl_config_service.txt:2: service BDT_PREF") || !strings.Contains(f.Evidence, "initBDT12c1-im.ora:11: BDT12c1_1 parallel_instance_group = BDT_PREF") ||
		f.Fix.Runtime[0] != "ALTER SYSTEM SET parallel_instance_group='BDT_PREF' SCOPE=BOTH SID='BDT12c1_2';" {
		t.Fatalf("%+v", f)
	}
	// 001 Test 3 Remark 2: after a failover with instance 1 still down, the
	// data is fully populated on instance 2, not distributed.
	if strings.Contains(f.Current, "after a failover, relocation") ||
		!strings.Contains(f.Current, "after a failover with BDT12c1_1 still down: fully on the available instance the service failed over to (001 Test 3, Remark 2)") ||
		!strings.Contains(f.Current, "running on BDT12c1_2 while BDT12c1_1 is up (a relocation, a startup order): distributed") {
		t.Errorf("failover: %s", f.Current)
	}
	// PIG on both instances: Tests 4 and 5, fully populated wherever it runs.
	both := "initIM2.ora=*.db_name='BDT12c1'\n*.inmemory_size=2G\nBDT12c1_1.parallel_instance_group='BDT_PREF'\nBDT12c1_2.parallel_instance_group='BDT_PREF'\n"
	r := artQuiet(t, runArt(t, id, host(), artSet(t, both, "srvctl_config_service.txt"), DBOracle), "passed")
	if !strings.Contains(r, "BDT_PREF: on preferred fully on the preferred instance the service runs on (001 Test 4)") || !strings.Contains(r, "Test 5") {
		t.Fatal(r)
	}
	// BDT_BOTH preferred on both, PIG = BDT_BOTH on both: Test 6, info.
	six := "initIM6.ora=*.db_name='BDT12c1'\n*.inmemory_size=2G\n*.parallel_instance_group='BDT_BOTH'\n"
	fs = artFires(t, runArt(t, id, host(), artSet(t, six, "srvctl_config_service.txt"), DBOracle))
	if len(fs) != 1 || fs[0].Severity != SevInfo || !strings.Contains(fs[0].Current, "Test 6") {
		t.Fatalf("%+v", fs)
	}
	// No In-Memory column store (the plain RAC pfile): nothing to say.
	artQuiet(t, runArt(t, id, host(), artSet(t, "initBDT12c1.ora", "srvctl_config_service.txt"), DBOracle), "passed")
	// srvctl output alone: parameters unknown.
	artQuiet(t, runArt(t, id, host(), artSet(t, "srvctl_config_service.txt"), DBOracle), "cannot")
	artQuiet(t, runArt(t, id, host(), nil, DBOracle), "n/a")
}
