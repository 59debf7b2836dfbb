package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
	wantContains(t, "cust1.ora", string(b), "*.processor_group_name='dbhost_cust1'", "sizes it from the cpuset (40 threads)", "HOST=15.1.1.1")
	if strings.Contains(string(b), "*.cpu_count=") {
		t.Errorf("cust1.ora: a bound instance is not caged:\n%s", b)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "oracle/tnsnames.ora"))
	wantContains(t, "tnsnames.ora", string(b), "LOAD_BALANCE = ON", "CUST2 =")
}

// TestPlaceGuestCLI: a kvm-guest spec planned from a fixture tree (text,
// JSON and the libvirt artifacts), and --apply's refusals that touch no
// libvirt: a --root tree without --libvirt-uri, a blank --libvirt-uri,
// --libvirt-uri without --apply. scripts/suites/libvirt.sh applies and
// rolls back against a private libvirtd.
func TestPlaceGuestCLI(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "guests.yaml")
	if err := os.WriteFile(spec, []byte("strategy: binding\ninstances:\n  - name: db1\n    engine: kvm-guest\n    domain: db1.prod\n    cpus: 4\n    memory_gb: 1\n    class: guaranteed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := "../../testdata/hosts/laptop-2s"
	code, out, errs := cliRun(t, "place", "--spec", spec, "--root", tree)
	if code != 0 || !strings.Contains(out, "guest db1 (domain db1.prod): 4 vCPUs") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs = cliRun(t, "place", "--spec", spec, "--root", tree, "--format", "json", "-o", dir)
	var r struct {
		Instances []struct {
			Guest *struct {
				Domain string `json:"domain"`
				Pins   []struct {
					VCPU int   `json:"vcpu"`
					CPUs []int `json:"cpus"`
				} `json:"vcpupin"`
				Virsh []string `json:"virsh"`
			} `json:"guest"`
		} `json:"instances"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || r.Instances[0].Guest == nil || len(r.Instances[0].Guest.Pins) != 4 {
		t.Fatalf("exit %d %v\n%s%s", code, err, out, errs)
	}
	for _, f := range []string{"libvirt/db1.prod.xml", "libvirt/db1.prod.virsh.sh", "hugepages.sh", "systemd/dbhost-hugepages.service"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("-o: %v", err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--root", t.TempDir() + "/x", "--apply", "--state-dir", t.TempDir()}, ""},
		{[]string{"--libvirt-uri", "qemu:///system"}, "go with --apply"},
		{[]string{"--apply", "--libvirt-uri", " ", "--root", tree, "--state-dir", t.TempDir()}, `--libvirt-uri " ": empty value`},
	} {
		code, _, errs := cliRun(t, append([]string{"place", "--spec", spec}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, errs)
		}
	}
	root := t.TempDir()
	copyDirForTest(t, tree, root)
	code, _, errs = cliRun(t, "place", "--spec", spec, "--root", root, "--apply", "--state-dir", filepath.Join(root, "state"))
	if code != exitUsage || !strings.Contains(errs, "not a host with libvirt: name the libvirt daemon with --libvirt-uri") {
		t.Errorf("--apply on a tree without --libvirt-uri: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "state", "journal")); err == nil {
		if ents, _ := os.ReadDir(filepath.Join(root, "state", "journal")); len(ents) > 0 {
			t.Errorf("a refused --apply left a journal: %v", ents)
		}
	}
}

func copyDirForTest(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPlaceMarkdownCLI: place --format markdown through the binary: a
// feasible plan with -o (the artifacts written as with text, their README
// in text), an infeasible one (exit 4, the reasons in the Markdown and on
// stderr), KVM guests, an unknown format (exit 2 naming the formats), and
// --apply on a copy of a fixture tree (dry run, then applied and rolled
// back): every word of the text is in the Markdown.
func TestPlaceMarkdownCLI(t *testing.T) {
	sameWords := func(what, text, md string) {
		t.Helper()
		plain := strings.NewReplacer("`", "", "|", " ").Replace(md)
		for _, w := range strings.Fields(text) {
			if !strings.Contains(plain, w) {
				t.Errorf("%s: %q of the text is not in the Markdown:\n%s", what, w, md)
			}
		}
	}
	// The binary runs in a directory of its own: absolute paths.
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	mix, infeasible, snap := abs("../../examples/place/case2-mix.yaml"), abs("../../examples/place/case4-caging-infeasible.yaml"), abs(bdtSnap)
	laptop, cgv2 := abs("../../testdata/hosts/laptop-2s"), abs("../../testdata/hosts/cgroup-v2")
	dir := filepath.Join(t.TempDir(), "out")
	md := dbhostExec(t, nil, "place", "--spec", mix, "--snapshot", snap, "--format", "markdown", "-o", dir)
	if md.code != 0 || !strings.Contains(md.stderr, "wrote ") {
		t.Fatalf("markdown -o: exit %d, %s", md.code, md.stderr)
	}
	wantContains(t, "place markdown", md.stdout, "# dbhost place (mix)\n\nPlacement (mix): feasible on 160 threads, 8 nodes",
		"\n| INSTANCE | ENGINE | CLASS | CPU_COUNT | CPUS | MEMS | HUGEPAGES (node:pages) |\n|---|", "\n| cust_a1 | oracle | guaranteed | 12 | ", "\ncpuset `dbhost_guaranteed`: cpus ")
	text := dbhostExec(t, nil, "place", "--spec", mix, "--snapshot", snap)
	sameWords("place", text.stdout, md.stdout)
	readme, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil || !strings.HasPrefix(string(readme), text.stdout+"\nFiles:\n") {
		t.Errorf("README.txt is not headed by the text view (%v):\n%s", err, readme)
	}
	if _, err := os.Stat(filepath.Join(dir, "oracle/cust_a1.ora")); err != nil {
		t.Errorf("-o with markdown: %v", err)
	}

	inf := dbhostExec(t, nil, "place", "--spec", infeasible, "--snapshot", snap, "--format", "markdown")
	if inf.code != exitInfeasible {
		t.Errorf("infeasible: exit %d", inf.code)
	}
	wantContains(t, "infeasible markdown", inf.stdout, "# dbhost place (caging)\n\nPlacement (caging): INFEASIBLE\n\nerror: plan: ", "over by 4", "\nwarning: plan: caging sets no cpuset")
	wantContains(t, "infeasible stderr", inf.stderr, "placement infeasible (1 reason(s)):\n  plan: ")

	spec := filepath.Join(t.TempDir(), "guests.yaml")
	os.WriteFile(spec, []byte("strategy: binding\ninstances:\n  - name: db1\n    engine: kvm-guest\n    domain: db1.prod\n    cpus: 4\n    memory_gb: 1\n    class: guaranteed\n"), 0o644)
	g := dbhostExec(t, nil, "place", "--spec", spec, "--root", laptop, "--format", "markdown")
	if g.code != 0 {
		t.Fatalf("guests: exit %d, %s", g.code, g.stderr)
	}
	wantContains(t, "guests markdown", g.stdout, "\n| db1 | kvm-guest | guaranteed | 4 | ", "\nguest db1 (domain `db1.prod`): 4 vCPUs 0→")
	gt := dbhostExec(t, nil, "place", "--spec", spec, "--root", laptop)
	sameWords("guests", gt.stdout, g.stdout)

	for _, args := range [][]string{{"--snapshot", snap}, {"--root", cgv2, "--apply", "--dry-run", "--state-dir", t.TempDir()}} {
		bad := dbhostExec(t, nil, append([]string{"place", "--spec", mix, "--format", "html"}, args...)...)
		if bad.code != exitUsage || !strings.Contains(bad.stderr, `--format "html": expected one of [text json markdown]`) {
			t.Errorf("--format html %v: exit %d, %s", args, bad.code, bad.stderr)
		}
	}
	if h := dbhostExec(t, nil, "place", "--help"); !strings.Contains(h.stdout, "--format markdown") || !strings.Contains(h.stdout, "[text json markdown]") {
		t.Errorf("place --help does not offer markdown:\n%s", h.stdout)
	}

	root := t.TempDir()
	copyDirForTest(t, cgv2, root)
	pg := filepath.Join(t.TempDir(), "pg.yaml")
	os.WriteFile(pg, []byte("strategy: binding\ninstances:\n  - name: pg\n    engine: postgres\n    cpus: 2\n    memory_gb: 0\n    class: guaranteed\n"), 0o644)
	state := filepath.Join(t.TempDir(), "state")
	apply := func(format string, extra ...string) execResult {
		return dbhostExec(t, nil, append([]string{"place", "--spec", pg, "--root", root, "--apply", "--state-dir", state, "--format", format}, extra...)...)
	}
	dry, dryText := apply("markdown", "--dry-run"), apply("text", "--dry-run")
	if dry.code != 0 || dryText.code != 0 {
		t.Fatalf("--apply --dry-run: exit %d / %d, %s%s", dry.code, dryText.code, dry.stderr, dryText.stderr)
	}
	wantContains(t, "dry run markdown", dry.stdout, "# dbhost place --apply (binding)\n", "\ncgroup hierarchy: `v2 /sys/fs/cgroup`\n", "\ndbhost apply --dry-run: nothing is changed\n",
		"\n~ `/sys/fs/cgroup/dbhost_pg`: (absent) → present  [place-binding] cpuset of pg\n")
	sameWords("place --apply --dry-run", dryText.stdout, dry.stdout)
	done := apply("markdown")
	if done.code != 0 {
		t.Fatalf("--apply: exit %d, %s", done.code, done.stderr)
	}
	wantContains(t, "apply markdown", done.stdout, "\n\\+ `/sys/fs/cgroup/dbhost_pg`: (absent) → present  [place-binding] cpuset of pg\n",
		"\n\\+ `/sys/fs/cgroup/dbhost_pg/cpuset.cpus`: (new group) → ", "\n  - already set: nothing written\n", " applied, 1 already set; journal ")
	if b, err := os.ReadFile(filepath.Join(root, "sys/fs/cgroup/dbhost_pg/cpuset.mems")); err != nil || strings.TrimSpace(string(b)) != "0" {
		t.Errorf("cpuset.mems after --apply: %q %v", b, err)
	}
	if rb := dbhostExec(t, nil, "rollback", "--root", root, "--state-dir", state); rb.code != 0 {
		t.Errorf("rollback: exit %d, %s", rb.code, rb.stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "sys/fs/cgroup/dbhost_pg")); err == nil {
		t.Error("the group --apply created is still there after rollback")
	}
}

// TestPlaceArtifactsAuditedBack: the init parameters and listener.ora
// dbhost place writes for bdt's customer cases, audited with the host they
// were planned on, raise nothing above info and nothing about the settings
// that make the placement (caging, binding, NUMA support, listeners):
// following the audit never undoes the placement.
func TestPlaceArtifactsAuditedBack(t *testing.T) {
	for _, c := range []string{"case1-caging", "case2-binding", "case2-mix", "case3-binding-option1", "case3-caging-option1", "case4-binding"} {
		t.Run(c, func(t *testing.T) {
			dir := t.TempDir()
			if code, _, errs := cliRun(t, "place", "--spec", "../../examples/place/"+c+".yaml", "--snapshot", bdtSnap, "-o", dir); code != 0 {
				t.Fatalf("place: exit %d, %s", code, errs)
			}
			arts, _ := filepath.Glob(filepath.Join(dir, "oracle", "*.ora"))
			args := []string{"audit", "--snapshot", bdtSnap, "--db", "oracle", "--format", "json"}
			for _, a := range arts {
				if filepath.Base(a) != "tnsnames.ora" {
					args = append(args, "--artifact", a)
				}
			}
			_, out, errs := cliRun(t, args...)
			var doc struct {
				Hosts []struct {
					Findings []struct{ ID, Severity, Setting, Current string }
				}
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Hosts) != 1 {
				t.Fatalf("audit json: %v\n%s\n%s", err, out, errs)
			}
			for _, f := range doc.Hosts[0].Findings {
				s := strings.ToLower(f.Setting + " " + f.Current)
				if f.Severity != "info" || strings.Contains(s, "cpu_count") || strings.Contains(s, "resource_manager_plan") ||
					strings.Contains(s, "processor_group") || strings.Contains(s, "numa_support") || strings.Contains(s, "listener") {
					t.Errorf("%s %s: %s (%s) — the audit asks to change the placement", f.ID, f.Severity, f.Setting, f.Current)
				}
			}
		})
	}
}
