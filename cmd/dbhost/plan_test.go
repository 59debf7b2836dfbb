package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCLIPlan(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "hosts", "numa-off")
	out := filepath.Join(t.TempDir(), "plan")
	code, stdout, stderr := cliRun(t, "plan", "--root", root, "--workload", "oltp", "--db", "none", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantContains(t, "summary", stdout, "dbhost plan for pg-numaoff (workload oltp, db none) written to "+out+"/",
		"tuned base profile: latency-performance (OLTP", "Pending reboot", "remove numa=off   [numa.disabled-at-boot]",
		"/sys/block/sda/queue/scheduler: bfq → mq-deadline   [io.scheduler]", "Nothing was changed on this host")
	code, stdout, stderr = cliRun(t, "plan", "--root", root, "--workload", "oltp", "--db", "none", "--format", "markdown", "-o", out)
	if code != 0 {
		t.Fatalf("markdown: exit %d: %s", code, stderr)
	}
	wantContains(t, "summary markdown", stdout, "# dbhost plan for pg-numaoff (workload oltp, db none)", "## Pending reboot", "- remove `numa=off`   [numa.disabled-at-boot]",
		"- sysfs   `/sys/block/sda/queue/scheduler`: bfq → mq-deadline   [io.scheduler]", "Review with: `dbhost apply --dry-run --plan "+out+"/plan.json`")
	for _, f := range []string{"plan.json", "tuned.conf", "sysctl.d/90-dbhost.conf", "udev/60-dbhost-block.rules", "limits.d/90-dbhost.conf", "boot-args.txt"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "boot-args.txt"))
	// pg-numaoff is Debian 12: the /etc/default/grub edit and update-grub, no grubby (issue 26, item 10).
	wantContains(t, "boot-args.txt", string(b), "#   edit /etc/default/grub: remove numa=... from GRUB_CMDLINE_LINUX\n", "\nupdate-grub\n")
	if strings.Contains(string(b), "grubby") {
		t.Errorf("boot-args.txt offers grubby on Debian:\n%s", b)
	}

	// JSON on stdout is plan.json; --only narrows the plan; a second run replaces the directory.
	code, stdout, stderr = cliRun(t, "plan", "--root", root, "--db", "none", "--only", "io", "--format", "json", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p struct {
		SchemaVersion int `json:"schema_version"`
		Changes       []struct {
			Kind, Key, Rule string
		} `json:"changes"`
		PendingReboot []json.RawMessage `json:"pending_reboot"`
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	if p.SchemaVersion != 1 || len(p.Changes) == 0 || len(p.PendingReboot) != 0 {
		t.Fatalf("%+v", p)
	}
	for _, c := range p.Changes {
		if !strings.HasPrefix(c.Rule, "io.") {
			t.Fatalf("--only io kept %+v", c)
		}
	}
	onDisk, _ := os.ReadFile(filepath.Join(out, "plan.json"))
	if string(onDisk) != stdout {
		t.Fatal("--format json must print plan.json as written")
	}
}

func TestCLIPlanUsage(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "hosts", "numa-off")
	for _, args := range [][]string{
		{"plan", "--root", root, "--workload", "batch"},
		{"plan", "--root", root, "--db", "db2"},
		{"plan", "--root", root, "--format", "html"},
		{"plan", "--root", root, "-o", "-"},
		{"plan", "extra"},
	} {
		if code, _, _ := cliRun(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
