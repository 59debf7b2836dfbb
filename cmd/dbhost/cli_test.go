package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// cliRun runs dbhost in-process and returns the exit code, stdout and stderr.
func cliRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// cliTree writes a small host tree (DIR/proc, DIR/sys, DIR/etc) and returns DIR.
func cliTree(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	files := map[string]string{
		"proc/sys/kernel/hostname":                                  "clihost\n",
		"proc/sys/kernel/osrelease":                                 "6.1.0-test\n",
		"proc/cmdline":                                              "BOOT_IMAGE=/vmlinuz ro quiet\n",
		"proc/meminfo":                                              "MemTotal:       16384 kB\nMemFree:         8192 kB\nHugepagesize:       2048 kB\n",
		"proc/sys/vm/swappiness":                                    "60\n",
		"etc/os-release":                                            "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n",
		"sys/devices/system/cpu/online":                             "0-1\n",
		"sys/devices/system/cpu/possible":                           "0-1\n",
		"sys/devices/system/node/online":                            "0\n",
		"sys/devices/system/node/node0/cpulist":                     "0-1\n",
		"sys/devices/system/node/node0/distance":                    "10\n",
		"sys/devices/system/node/node0/meminfo":                     "Node 0 MemTotal:       16384 kB\nNode 0 MemFree:         8192 kB\n",
		"sys/devices/system/cpu/cpu0/topology/physical_package_id":  "0\n",
		"sys/devices/system/cpu/cpu0/topology/core_id":              "0\n",
		"sys/devices/system/cpu/cpu0/topology/thread_siblings_list": "0\n",
		"sys/devices/system/cpu/cpu1/topology/physical_package_id":  "0\n",
		"sys/devices/system/cpu/cpu1/topology/core_id":              "1\n",
		"sys/devices/system/cpu/cpu1/topology/thread_siblings_list": "1\n",
	}
	for p, body := range files {
		full := filepath.Join(d, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// sles11Kernel makes tree a SLES 11 SP4 host (3.0): there vm.swappiness 60
// is a warning (003: "Not needed as much in RHEL7", so info from 3.10 on),
// the one warning the --fail-on and fleet tests count on.
func sles11Kernel(t *testing.T, tree string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(tree, "proc/sys/kernel/osrelease"), []byte("3.0.101-63-default\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return tree
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

func TestCLIHelpVersionCompletion(t *testing.T) {
	code, out, _ := cliRun(t, "--help")
	if code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	wantContains(t, "--help", out, "collect", "audit", "Exit codes", "--sosreport", "completion")

	code, out, _ = cliRun(t, "help", "collect")
	if code != 0 {
		t.Fatalf("help collect exit %d", code)
	}
	wantContains(t, "help collect", out, "--root", "--sosreport", "--snapshot", "--format", "-o, --output", "dbhost collect --format json -o host.json")

	code, out, _ = cliRun(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("completion bash exit %d", code)
	}
	wantContains(t, "completion bash", out, "bash completion", "__start_dbhost", "complete -o default -F __start_dbhost dbhost")

	code, out, _ = cliRun(t, "--version")
	if code != 0 {
		t.Fatalf("--version exit %d", code)
	}
	wantContains(t, "--version", out, "dbhost", version)
}

func TestCLIUsageErrors(t *testing.T) {
	tree := cliTree(t)
	tmp := t.TempDir()
	notJSON := filepath.Join(tmp, "notjson.json")
	os.WriteFile(notJSON, []byte("{\n  \"schema_version\": 1,\n  oops\n}\n"), 0o644)
	otherVersion := filepath.Join(tmp, "v99.json")
	os.WriteFile(otherVersion, []byte("{\"schema_version\": 99}\n"), 0o644)
	missing := filepath.Join(tmp, "no-such-dir")
	badArchive := filepath.Join(tmp, "sosreport-x.tar.xz")
	os.WriteFile(badArchive, []byte("not an archive"), 0o644)

	cases := []struct {
		name  string
		args  []string
		wants []string
	}{
		{"unknown flag", []string{"collect", "--bogus"}, []string{"--bogus", "dbhost help collect"}},
		{"bad format", []string{"collect", "--root", tree, "--format", "yaml"}, []string{"--format", "yaml", "text", "json"}},
		{"root missing", []string{"collect", "--root", missing}, []string{missing, "--root", "directory"}},
		{"root is a file", []string{"collect", "--root", notJSON}, []string{notJSON, "--root", "directory"}},
		{"snapshot not json", []string{"collect", "--snapshot", notJSON}, []string{notJSON, "line 3", "not a dbhost snapshot"}},
		{"snapshot other schema", []string{"collect", "--snapshot", otherVersion}, []string{otherVersion, "schema_version 99", "versions 1 to 3"}},
		{"snapshot missing", []string{"collect", "--snapshot", filepath.Join(tmp, "nope.json")}, []string{"nope.json"}},
		{"two sources", []string{"collect", "--root", tree, "--snapshot", notJSON}, []string{"only one of", "--root", "--sosreport", "--snapshot"}},
		{"bad sosreport", []string{"collect", "--sosreport", badArchive}, []string{badArchive, "expected a sosreport archive"}},
		{"missing sosreport", []string{"collect", "--sosreport", filepath.Join(tmp, "gone.tar.xz")}, []string{"gone.tar.xz", "no such file"}},
		{"unwritable output", []string{"collect", "--root", tree, "-o", filepath.Join(missing, "out.json")}, []string{"-o", "out.json"}},
		{"output is a directory", []string{"collect", "--root", tree, "-o", tmp}, []string{"-o " + tmp, "is a directory"}},
		{"stray argument", []string{"collect", "extra"}, []string{"extra", "dbhost help collect"}},
		{"unknown command", []string{"bogus"}, []string{"unknown command", "bogus"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := cliRun(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", code, exitUsage, errs)
			}
			if out != "" {
				t.Errorf("stdout not empty on error: %q", out)
			}
			if !strings.HasPrefix(errs, "dbhost: ") {
				t.Errorf("stderr %q does not start with \"dbhost: \"", errs)
			}
			wantContains(t, "stderr", errs, tc.wants...)
		})
	}
}

func TestCLICollectRoot(t *testing.T) {
	tree := cliTree(t)
	code, out, errs := cliRun(t, "collect", "--root", tree)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "summary", out, "clihost", "6.1.0-test")
	code, out, errs = cliRun(t, "collect", "--root", tree, "--format", "markdown")
	if code != 0 {
		t.Fatalf("markdown: exit %d: %s", code, errs)
	}
	wantContains(t, "summary markdown", out, "# Host clihost", "## Topology: ", "| node | cpus | mem total |")

	code, out, errs = cliRun(t, "collect", "--root", tree, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		SchemaVersion int `json:"schema_version"`
		Source        struct{ Kind, Path string }
		Host          struct{ Hostname, Kernel string }
		Topology      struct {
			Nodes []struct {
				ID   int   `json:"id"`
				CPUs []int `json:"cpus"`
			} `json:"nodes"`
			Sockets int `json:"sockets"`
		}
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("collect --format json is not JSON: %v", err)
	}
	if s.SchemaVersion != snapshot.SchemaVersion || s.Source.Kind != "root" || s.Source.Path != tree || s.Host.Hostname != "clihost" ||
		len(s.Topology.Nodes) != 1 || len(s.Topology.Nodes[0].CPUs) != 2 || s.Topology.Sockets != 1 {
		t.Errorf("snapshot = %+v", s)
	}
}

func TestCLISnapshotRoundTrip(t *testing.T) {
	tree := cliTree(t)
	a := filepath.Join(t.TempDir(), "a.json")
	code, out, errs := cliRun(t, "collect", "--root", tree, "--format", "json", "-o", a)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
	}
	want, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	code, got, errs := cliRun(t, "collect", "--snapshot", a, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got != string(want) {
		t.Errorf("round trip differs:\n--- a.json\n%s\n--- collect --snapshot a.json\n%s", want, got)
	}
	// And once more through a file: still identical.
	b := filepath.Join(t.TempDir(), "b.json")
	if code, _, errs := cliRun(t, "collect", "--snapshot", a, "--format", "json", "-o", b); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if gotB, _ := os.ReadFile(b); !bytes.Equal(gotB, want) {
		t.Error("b.json differs from a.json")
	}
}

func TestCLICollectSosreport(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	const top = "sosreport-db9-2026-11-22-xyz/"
	for name, body := range map[string]string{
		top + "sos_commands/kernel/sysctl_-a":        "vm.swappiness = 1\n",
		top + "sos_commands/numa/numactl_--hardware": "available: 1 nodes (0)\nnode 0 cpus: 0 1\nnode 0 size: 100 MB\nnode 0 free: 50 MB\nnode distances:\nnode 0\n0: 10\n",
		top + "uname":            "Linux db9 5.14.0-1.el9.x86_64 #1 SMP x86_64 x86_64 x86_64 GNU/Linux\n",
		top + "hostname":         "db9\n",
		top + "var/log/messages": "big\n",
	} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), "sosreport-db9.tar.gz")
	os.WriteFile(p, buf.Bytes(), 0o644)

	code, out, errs := cliRun(t, "collect", "--sosreport", p, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Source struct{ Kind, Path string }
		Host   struct{ Hostname, Kernel string }
		Sysctl map[string]string
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Source.Kind != "sosreport" || s.Host.Hostname != "db9" || s.Host.Kernel != "5.14.0-1.el9.x86_64" || s.Sysctl["vm.swappiness"] != "1" {
		t.Errorf("snapshot from sosreport: %+v", s)
	}
	if ents, _ := os.ReadDir(os.Getenv("TMPDIR")); len(ents) != 0 {
		t.Errorf("collect --sosreport left %d temporary entries", len(ents))
	}
}

// TestExitCodeTableInREADME: README's exit code table is the one `dbhost
// --help` prints (exitCodes), row for row.
func TestExitCodeTableInREADME(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| ") && len(line) > 4 && line[2] >= '0' && line[2] <= '9' && line[3] == ' ' {
			rows = append(rows, line)
		}
	}
	var want []string
	for _, r := range exitCodes {
		want = append(want, readmeExitRow(r))
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("README's exit code rows:\n%s\nwant (from exitCodes):\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	_, out, _ := cliRun(t, "--help")
	for _, r := range exitCodes {
		if !strings.Contains(out, "  "+r[0]+"  ["+r[1]+"]") {
			t.Errorf("--help lacks exit code %s", r[0])
		}
	}
}

func readmeExitRow(r [3]string) string {
	return "| " + r[0] + " | " + r[1] + " | " + r[2] + " |"
}
