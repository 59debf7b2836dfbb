package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

const bdtSnap = "../../examples/place/bdt-host.json"

func TestPlaceExitCodesAndContract(t *testing.T) {
	code, out, errs := cliRun(t, "place", "--spec", "../../examples/place/case2-binding.yaml", "--snapshot", bdtSnap, "--format", "json")
	if code != 0 {
		t.Fatalf("feasible spec: exit %d, stderr %s", code, errs)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"strategy", "feasible", "instances", "errors"} {
		if _, ok := r[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	inst := r["instances"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "cpus", "mems", "cpu_count", "hugepages"} {
		if _, ok := inst[k]; !ok {
			t.Errorf("instance lacks %q", k)
		}
	}
	hp := inst["hugepages"].([]any)[0].(map[string]any)
	for _, k := range []string{"node", "size_kb", "pages"} {
		if _, ok := hp[k]; !ok {
			t.Errorf("hugepages entry lacks %q", k)
		}
	}

	code, out, errs = cliRun(t, "place", "--spec", "../../examples/place/case4-caging-infeasible.yaml", "--snapshot", bdtSnap)
	if code != exitInfeasible {
		t.Errorf("infeasible spec: exit %d", code)
	}
	wantContains(t, "stdout", out, "INFEASIBLE", "over by 4")
	wantContains(t, "stderr", errs, "placement infeasible", "over by 4")

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("strategy: binding\ninstances:\n  - name: a\n    engine: oracle\n    cpus: 2\n    class: guaranteed\n    colour: red\n"), 0o644)
	code, _, errs = cliRun(t, "place", "--spec", bad, "--snapshot", bdtSnap)
	if code != exitUsage {
		t.Errorf("bad spec: exit %d", code)
	}
	wantContains(t, "stderr", errs, bad+":7:", "colour")

	code, _, errs = cliRun(t, "place", "--spec", "../../examples/place/case2-binding.yaml", "--snapshot", bdtSnap, "--apply")
	if code != exitUsage {
		t.Errorf("--apply: exit %d", code)
	}
	wantContains(t, "stderr", errs, "not on a --snapshot or --sosreport")
	code, _, errs = cliRun(t, "place", "--spec", "../../examples/place/case2-binding.yaml", "--snapshot", bdtSnap, "--dry-run")
	if code != exitUsage {
		t.Errorf("--dry-run without --apply: exit %d", code)
	}
	wantContains(t, "stderr", errs, "go with --apply")
}

func TestPlaceWritesArtifacts(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := cliRun(t, "place", "--spec", "../../examples/place/case4-binding.yaml", "--snapshot", bdtSnap, "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, f := range []string{"README.txt", "cgconfig.conf", "hugepages.sh", "oracle/cust1.ora", "oracle/listener.ora", "oracle/tnsnames.ora", "systemd/dbhost_cust1.slice"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "oracle/cust1.ora"))
	wantContains(t, "cust1.ora", string(b), "*.processor_group_name='dbhost_cust1'", "*.cpu_count=40", "HOST=15.1.1.1")
	b, _ = os.ReadFile(filepath.Join(dir, "oracle/tnsnames.ora"))
	wantContains(t, "tnsnames.ora", string(b), "LOAD_BALANCE = ON", "CUST2 =")
}
