package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// aixSnapshotFile writes an AIX host's snapshot (the aix section an AIX
// bundle gives) with three problems the AIX rules find: a disk with the
// generic ODM definition, I/Os blocked with no pbuf, and an FC adapter
// out of command elements.
func aixSnapshotFile(t *testing.T) string {
	t.Helper()
	i64 := func(v int64) *int64 { return &v }
	num := func(v int64) snapshot.AIXAttr { return snapshot.AIXAttr{Value: "x", Kind: "number", Number: i64(v)} }
	level := "7100-04-06-1806"
	s := &snapshot.Snapshot{
		SchemaVersion: snapshot.SchemaVersion,
		Source:        snapshot.Source{Kind: "aix-bundle", Path: "aixdb1.aixbundle.tar.gz", Collector: "test"},
		Host:          snapshot.Host{Hostname: "aixdb1", OS: "AIX " + level, Arch: "ppc64", CmdlineArgs: map[string]string{}},
		Processes:     []snapshot.Process{},
		Sysctl:        map[string]string{},
		Absent: []snapshot.Absence{{Fact: "memory", Reason: "not collected: an AIX host has no /proc or /sys; its facts are in aix (--aix-bundle)"},
			{Fact: "topology", Reason: "not collected: an AIX host has no /proc or /sys; its facts are in aix (--aix-bundle)"}},
		AIX: &snapshot.AIX{
			Bundle:  snapshot.AIXBundle{Format: "dbhost-aix-bundle 1", Hostname: "aixdb1"},
			OSLevel: &level,
			Disks: []snapshot.AIXDisk{{Name: "hdisk2", Status: "Available", Description: "Other FC SCSI Disk Drive", Generic: true,
				QueueDepth: i64(1), Paths: []snapshot.AIXPath{{Status: "Enabled", Parent: "fscsi0"}}}},
			FCAdapters: []snapshot.AIXFCAdapter{{Name: "fcs0", Status: "Available", NumCmdElems: i64(200), MaxXferSize: i64(0x100000),
				NoCommandResourceCount: i64(4711), NoDMAResourceCount: i64(0),
				Attributes: map[string]snapshot.AIXAttr{"num_cmd_elems": num(200)}}},
			VmstatV:   map[string]float64{"pending disk I/Os blocked with no pbuf": 164918},
			Processes: []snapshot.AIXProcess{{User: "oracle", PID: 4000, PPID: 1, Cmd: "ora_pmon_ORCL", Engine: "oracle", Role: "pmon", Instance: "ORCL"}},
		},
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "aixdb1.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCLIAuditAIXSnapshot: an AIX host's findings go through every output
// the Linux ones do — audit text, JSON, Markdown, Prometheus, the exporter
// and the HTML report — and no Linux rule judges the host.
func TestCLIAuditAIXSnapshot(t *testing.T) {
	snap := aixSnapshotFile(t)
	code, out, errs := cliRun(t, "audit", "--snapshot", snap, "--format", "json", "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var d auditDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(d.Hosts) != 1 || d.Hosts[0].Host != "aixdb1" || d.Hosts[0].DB != "oracle" {
		t.Fatalf("%+v", d)
	}
	ids := findingIDs(d, 0)
	for _, id := range []string{"io.aix-generic-disk-odm", "io.aix-lvm-pbufs", "io.aix-fc-num-cmd-elems"} {
		if !strings.Contains(ids, id) {
			t.Errorf("json: no %s finding in %s", id, ids)
		}
	}
	for _, f := range d.Hosts[0].Findings {
		if !strings.Contains(f.ID, ".aix-") && !strings.Contains(f.ID, "awr-") {
			t.Errorf("a Linux rule judged the AIX host: %+v", f)
		}
		if f.Evidence == "" || len(f.Sources) == 0 || f.Risk == "" || len(f.Fix.Runtime) == 0 {
			t.Errorf("incomplete finding %+v", f)
		}
	}
	for _, c := range d.Hosts[0].CannotCheck {
		if strings.Contains(c.Reason, "internal error") {
			t.Errorf("%s: %s", c.ID, c.Reason)
		}
	}
	if !strings.Contains(out, "applies to Linux hosts; this host runs AIX") {
		t.Errorf("--explain does not say why the Linux rules did not run:\n%s", out)
	}

	code, out, _ = cliRun(t, "audit", "--snapshot", snap)
	wantContains(t, "text", out, "— io.aix-generic-disk-odm", "chdev -l fcs0 -a num_cmd_elems=", "lvmo -v <vg> -o pv_pbuf_count=")
	if code != 0 {
		t.Errorf("text: exit %d", code)
	}
	if code, _, errs := cliRun(t, "audit", "--snapshot", snap, "--fail-on", "warning"); code != exitFindings {
		t.Errorf("--fail-on warning: exit %d: %s", code, errs)
	}
	code, out, _ = cliRun(t, "audit", "--snapshot", snap, "--format", "markdown")
	if code != 0 || !strings.HasPrefix(out, "# Audit of aixdb1") || !strings.Contains(out, "io.aix-lvm-pbufs") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
	code, out, _ = cliRun(t, "audit", "--snapshot", snap, "--format", "prometheus")
	wantContains(t, "prometheus", out, `dbhost_finding{area="io",rule="io.aix-fc-num-cmd-elems",setting="fcs0:num_cmd_elems",severity="warning"} 1`,
		`dbhost_info{db="oracle",host="aixdb1"`)
	promtoolCheck(t, "audit --format prometheus of an AIX host", out)

	addr := startExporter(t, "--snapshot", snap)
	if code, body := httpGet(t, http.DefaultClient, "http://"+addr+"/metrics", "", ""); code != 200 ||
		!strings.Contains(body, `rule="io.aix-generic-disk-odm"`) {
		t.Errorf("exporter: status %d\n%s", code, body)
	}

	html := filepath.Join(t.TempDir(), "report.html")
	if code, _, errs := cliRun(t, "report", "--snapshot", snap, "-o", html); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(html)
	wantContains(t, "report", string(b), "<h1>dbhost report: aixdb1</h1>", "io.aix-generic-disk-odm", "chdev -l fcs0 -a num_cmd_elems=")

	code, out, _ = cliRun(t, "rules", "show", "io.aix-lvm-pbufs")
	if code != 0 || !strings.Contains(out, "applies to  AIX hosts") {
		t.Errorf("rules show: exit %d\n%s", code, out)
	}
}

// TestCLIAuditAIXBundleFindings: the golden AIX 7.2 bundle (--aix-bundle)
// with its alert log (--artifact) gets the AIX rules' findings, in text and
// HTML alike: the hdisk queue, the redo file system's block size named from
// the alert log's redo members, the alert log's lio_listio EAGAIN.
func TestCLIAuditAIXBundleFindings(t *testing.T) {
	alert := filepath.Join(t.TempDir(), "alert_ORCL.log")
	log := "Starting ORACLE instance (normal)\nORACLE_SID = ORCL\nCompleted: ALTER DATABASE OPEN\n" +
		"  Current log# 1 seq# 5 mem# 0: /oraredo/ORCL/redo01a.log\nTue Nov 24 03:00:00 2026\n" +
		"Warning: lio_listio returned EAGAIN\nPerformance degradation may be seen.\n"
	if err := os.WriteFile(alert, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cliRun(t, "audit", "--aix-bundle", aixBundle, "--artifact", alert, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var d auditDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	ids := findingIDs(d, 0)
	for _, id := range []string{"io.aix-hdisk-queue-depth", "io.aix-redo-agblksize", "db.aix-aio-servers", "io.aix-generic-disk-odm"} {
		if !strings.Contains(ids, id) {
			t.Errorf("no %s finding: %s", id, ids)
		}
	}
	for _, f := range d.Hosts[0].Findings {
		if f.ID == "io.aix-redo-agblksize" && !strings.Contains(f.Evidence, "alert_ORCL.log:4 redo member") {
			t.Errorf("redo file system not named from the alert log: %s", f.Evidence)
		}
		if f.ID == "db.aix-aio-servers" && f.Setting == "aio:maxservers" && !strings.Contains(f.Evidence, "lio_listio returned EAGAIN") {
			t.Errorf("EAGAIN not in the evidence: %s", f.Evidence)
		}
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if code, _, errs := cliRun(t, "report", "--aix-bundle", aixBundle, "--artifact", alert, "-o", html); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(html)
	wantContains(t, "report", string(b), "io.aix-redo-agblksize", "crfs -v jfs2")
}
