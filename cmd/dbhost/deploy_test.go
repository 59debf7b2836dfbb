package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestDeployMonitoring: the alerting rules and the Grafana dashboard in
// deploy/ use only metrics the exporter really serves (scraped from a real
// exporter on a fixture tree), the rules pass promtool check and their unit
// tests (promtool test rules), and every dashboard query parses as PromQL.
func TestDeployMonitoring(t *testing.T) {
	tree := fixtureRoot("interleaved-4n")
	addr := startExporter(t, "--root", tree, "--cache-interval", "1h")
	code, body := httpGet(t, http.DefaultClient, "http://"+addr+"/metrics", "", "")
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
	served := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "#" && f[1] == "HELP" {
			served[f[2]] = true
		}
	}
	rulesFile := filepath.Join("..", "..", "deploy", "prometheus", "dbhost.rules.yml")
	dashFile := filepath.Join("..", "..", "deploy", "grafana", "dbhost-dashboard.json")
	metric := regexp.MustCompile(`\bdbhost_[a-z0-9_]+`)
	for _, f := range []string{rulesFile, dashFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		used := map[string]bool{}
		for _, m := range metric.FindAllString(string(b), -1) {
			used[m] = true
		}
		if len(used) == 0 {
			t.Errorf("%s uses no dbhost metric", f)
		}
		for m := range used {
			if !served[m] {
				t.Errorf("%s uses %s, which the exporter does not serve", f, m)
			}
		}
	}

	// The dashboard: JSON Grafana imports, panels that fit the 24-column
	// grid with unique ids, every query valid PromQL (each becomes a
	// recording rule that promtool parses).
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			ID      int                      `json:"id"`
			Title   string                   `json:"title"`
			GridPos struct{ X, Y, W, H int } `json:"gridPos"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	b, err := os.ReadFile(dashFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dash); err != nil || dash.UID == "" || len(dash.Panels) == 0 {
		t.Fatalf("%s: %v (uid %q, %d panels)", dashFile, err, dash.UID, len(dash.Panels))
	}
	ids := map[int]bool{}
	var rec strings.Builder
	rec.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	n := 0
	for _, p := range dash.Panels {
		if ids[p.ID] || p.GridPos.W <= 0 || p.GridPos.X+p.GridPos.W > 24 || len(p.Targets) == 0 {
			t.Errorf("panel %d %q: duplicate id, bad gridPos %+v or no query", p.ID, p.Title, p.GridPos)
		}
		ids[p.ID] = true
		for _, q := range p.Targets {
			e := strings.NewReplacer("$instance", ".+", "$__rate_interval", "5m").Replace(q.Expr)
			n++
			fmt.Fprintf(&rec, "      - record: dashboard:panel_%d\n        expr: %q\n", n, e)
		}
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool (Debian package prometheus) is not installed: the rules and dashboard are not checked")
		}
		t.Skip("promtool not installed (Debian package prometheus)")
	}
	recFile := filepath.Join(t.TempDir(), "dashboard.rules.yml")
	if err := os.WriteFile(recFile, []byte(rec.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "rules", rulesFile},
		{"test", "rules", filepath.Join("..", "..", "deploy", "prometheus", "dbhost.rules.test.yml")},
		{"check", "rules", recFile},
	} {
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	var names []string
	for m := range served {
		names = append(names, m)
	}
	sort.Strings(names)
	t.Logf("served: %s", strings.Join(names, " "))
}
