package main

import (
	"encoding/json"
	"testing"
)

func TestNumaCommand(t *testing.T) {
	code, out, errs := cliRun(t, "numa", "--snapshot", bdtSnap)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "numa text", out, "Node_4", "0,81-89,120-129", "49000636_kB", "39300/39044/0", "node distances", "0: 10 13 12 12 22 22 22 22")

	code, out, errs = cliRun(t, "numa", "--root", "../../testdata/hosts/interleaved-4n", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v struct {
		Nodes []struct {
			Node      int
			Distances []int
			BusyPct   *float64 `json:"busy_pct"`
		}
		Sample string
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Nodes) != 4 || len(v.Nodes[3].Distances) != 4 || v.Nodes[0].BusyPct == nil || v.Sample == "" {
		t.Errorf("json view: %s", out)
	}

	code, out, _ = cliRun(t, "numa", "--root", "../../testdata/hosts/interleaved-4n", "--db", "orcl")
	if code != 0 {
		t.Fatalf("--db: exit %d", code)
	}
	wantContains(t, "--db", out, "pid 4101", "verdict: pid 4101 (ora_pmon_ORCL): spread: 25%", "distance ratio")
	code, out, _ = cliRun(t, "numa", "--root", "../../testdata/hosts/interleaved-4n", "--db", "orcl", "--format", "markdown")
	if code != 0 {
		t.Fatalf("--db --format markdown: exit %d", code)
	}
	wantContains(t, "--db markdown", out, "# pid 4101", "- verdict: pid 4101 (ora_pmon_ORCL): spread: 25%", "| node | anon_kB |")
	code, out, _ = cliRun(t, "numa", "--snapshot", bdtSnap, "--format", "markdown")
	if code != 0 {
		t.Fatalf("--format markdown: exit %d", code)
	}
	wantContains(t, "numa markdown", out, "# NUMA nodes", "| Node_4 | 0,81-89,120-129 | 136024568_kB |", "## node distances", "| 0: | 10 | 13 | 12 |")

	code, _, errs = cliRun(t, "numa", "--root", "../../testdata/hosts/interleaved-4n", "--pid", "99999")
	if code != exitUsage {
		t.Errorf("unknown pid in a tree: exit %d", code)
	}
	wantContains(t, "stderr", errs, "not among the snapshot's database processes")
	code, _, _ = cliRun(t, "numa", "--snapshot", bdtSnap, "--format", "yaml")
	if code != exitUsage {
		t.Errorf("--format yaml: exit %d", code)
	}
}
