package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/rules"
)

func TestAWRRender(t *testing.T) {
	w, tm, avg, pct := int64(16005), 1065.4, 66.57, 39.4
	cpu, cpuPct := 1638.6, 60.6
	class := "Scheduler"
	lio := 3495618.2
	r := &artifacts.AWRReport{File: "a.txt", Kind: "awr", Format: "text", DBName: "BDT12C", Instance: "BDT12C1", Version: "12.1.0.2.0",
		TopEvents: []artifacts.AWREvent{{Event: "DB CPU", TimeS: &cpu, PctDBTime: &cpuPct},
			{Event: "resmgr:cpu quantum", Waits: &w, TimeS: &tm, AvgMS: &avg, PctDBTime: &pct, WaitClass: &class}},
		LoadProfile: artifacts.AWRLoad{LogicalReadsPerS: &lio}, WaitClasses: []artifacts.AWRWaitClass{}, OSStats: map[string]float64{},
		Parameters: map[string]string{}}
	b := *r
	b.File = "b.txt"
	lio2 := 5786023.5
	b.LoadProfile.LogicalReadsPerS = &lio2
	b.TopEvents = b.TopEvents[:1]
	items := []AWRItem{{Report: r, Rules: 10, Findings: []rules.Finding{{ID: "db.awr-resmgr-cpu-quantum", Severity: rules.SevWarning, Title: "caging", Setting: "cpu_count"}},
		CannotCheck: []rules.Result{{ID: "x.awr-y", Title: "needs host", Reason: "no host given"}}}, {Report: &b, Rules: 10}}
	cmp := artifacts.CompareAWR([]*artifacts.AWRReport{r, &b})
	txt := string(AWRText(items, cmp, FindingsOptions{}))
	for _, want := range []string{"a.txt — AWR text report, BDT12C/BDT12C1 (12.1.0.2.0, single instance)", "resmgr:cpu quantum  16,005",
		"(the top events account for 100 % of DB time)", "Diagnosis: 1 warning", "Could not decide (what would):", "no host given",
		"Diagnosis: no finding from the 10 report rules.", "logical_reads_per_s", "+65.5 %", "(not listed)"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	js, err := AWRJSON(items, cmp)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	reps := doc["reports"].([]any)
	first := reps[0].(map[string]any)
	if doc["schema_version"] != 1.0 || first["db_name"] != "BDT12C" || len(first["findings"].([]any)) != 1 || first["cannot_check"] == nil {
		t.Errorf("%s", js)
	}
	if f := reps[1].(map[string]any)["findings"]; f == nil || len(f.([]any)) != 0 {
		t.Errorf("no findings must be [], got %v", f)
	}
	if doc["comparison"] == nil {
		t.Error("no comparison")
	}
}

func TestAWRNum(t *testing.T) {
	for in, want := range map[float64]string{3495618.2: "3,495,618.2", 29300: "29,300", 8.05: "8.05", 57.6: "57.6", 0.42051: "0.421", 2: "2", -1500.5: "-1,500.5"} {
		if got := num(in); got != want {
			t.Errorf("num(%v) = %q, want %q", in, got, want)
		}
	}
}
