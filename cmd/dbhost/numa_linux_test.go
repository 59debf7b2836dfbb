package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestNumaLive(t *testing.T) {
	code, out, errs := cliRun(t, "numa", "--interval", "20ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "20ms sample") && !strings.Contains(out, "No NUMA nodes") {
		t.Errorf("no sample on the live host:\n%s", out)
	}
	code, out, errs = cliRun(t, "numa", "--pid", strconv.Itoa(os.Getpid()), "--format", "json")
	if code != 0 {
		t.Fatalf("--pid self: exit %d: %s", code, errs)
	}
	var ps []struct {
		PID         int    `json:"pid"`
		Verdict     string `json:"verdict"`
		CPUsAllowed []int  `json:"cpus_allowed"`
	}
	if err := json.Unmarshal([]byte(out), &ps); err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].PID != os.Getpid() || len(ps[0].CPUsAllowed) == 0 || ps[0].Verdict == "" {
		t.Errorf("%s", out)
	}
	if code, _, _ := cliRun(t, "numa", "--pid", "999999999"); code != exitUsage {
		t.Errorf("missing pid: exit %d", code)
	}
}
