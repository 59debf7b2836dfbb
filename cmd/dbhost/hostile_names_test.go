package main

import (
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The names of issue 24's item 4, as a host (a customer's tree) may hold
// them: a disk and a cgroup whose names are shell code, and a disk whose
// name holds ESC, BEL and a newline that starts a line of its own.
const (
	diskShell   = "sdk;touch IWASHERE;"
	cgroupShell = "oracle;touch PWNED;#"
	diskControl = "sdq\x1b]0;owned\x07\ntouch FORGED;#"
)

var hostileMarks = []string{"IWASHERE", "PWNED", "FORGED"}

// hostileTree is cgroup-v1 (a disk finding and a cgroup cpuset.mems
// finding) with its disk sda renamed to diskShell, a second disk (sda's
// copy) named diskControl, and its cgroup oracle renamed to cgroupShell.
func hostileTree(t *testing.T) string {
	t.Helper()
	root := copyFixture(t, "cgroup-v1")
	link := filepath.Join(root, "sys/block/sda")
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatal(err)
	}
	devDir := filepath.Join(filepath.Dir(link), filepath.Dir(target))
	for _, name := range []string{diskShell, diskControl} {
		if err := exec.Command("cp", "-a", filepath.Join(devDir, "sda"), filepath.Join(devDir, name)).Run(); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(filepath.Dir(target), name), filepath.Join(root, "sys/block", name)); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(link)
	os.RemoveAll(filepath.Join(devDir, "sda"))
	cg := filepath.Join(root, "sys/fs/cgroup/cpuset")
	if err := os.Rename(filepath.Join(cg, "oracle"), filepath.Join(cg, cgroupShell)); err != nil {
		t.Fatal(err)
	}
	pc := filepath.Join(root, "proc/2201/cgroup")
	b, err := os.ReadFile(pc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pc, []byte(strings.ReplaceAll(string(b), ":/oracle\n", ":/"+cgroupShell+"\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// runFix runs one fix command as a DBA's paste would, in a directory of its
// own, with the host paths moved under it and a PATH holding only touch
// (every other command is "not found": nothing on this machine changes),
// and returns the marks it created. A trailing "   (comment)" or
// "   # comment" is left out: the command is what precedes it.
func runFix(t *testing.T, cmd string) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	touch, err := exec.LookPath("touch")
	if err != nil {
		t.Skip("no touch")
	}
	os.Symlink(touch, filepath.Join(bin, "touch"))
	if i := strings.Index(cmd, "   ("); i > 0 {
		cmd = cmd[:i]
	}
	for _, p := range []string{"/sys/", "/proc/", "/dev/", "/etc/"} {
		cmd = strings.ReplaceAll(cmd, p, dir+"/host"+p)
	}
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = dir
	c.Env = []string{"PATH=" + bin, "HOME=" + dir}
	c.Run() // the command fails (no such file): what matters is what else ran
	var made []string
	for _, m := range hostileMarks {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			made = append(made, m)
		}
	}
	return made
}

// hostileCommands are the commands among cmds that hold a hostile name.
func hostileCommands(cmds []string) []string {
	var out []string
	for _, c := range cmds {
		for _, m := range hostileMarks {
			if strings.Contains(c, m) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// rawControl finds a control character (newline and tab aside), a bidi
// control or a non-UTF-8 byte in s.
var rawControl = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// TestHostileNames (issue 24, item 4): a tree whose disk and cgroup names
// are shell code, through the real binary. Every fix command of audit's
// text, JSON and Markdown and of report's HTML copy blocks, run by a shell
// as pasted, creates none of the names' files; no raw ESC/BEL reaches the
// text or Markdown, and the newline inside a name does not start a line.
func TestHostileNames(t *testing.T) {
	root := hostileTree(t)

	jsonOut, stderr, code := runBinary(t, "audit", "--root", root, "--format", "json")
	if code != 0 && code != 1 {
		t.Fatalf("audit --format json: exit %d\n%s", code, stderr)
	}
	var doc struct {
		Hosts []struct {
			Findings []struct {
				ID  string `json:"id"`
				Fix struct {
					Runtime    []string `json:"runtime"`
					Persistent []string `json:"persistent"`
				} `json:"fix"`
			} `json:"findings"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &doc); err != nil {
		t.Fatalf("audit JSON: %v\n%s", err, jsonOut)
	}
	var fromJSON []string
	for _, h := range doc.Hosts {
		for _, f := range h.Findings {
			fromJSON = append(fromJSON, f.Fix.Runtime...)
			fromJSON = append(fromJSON, f.Fix.Persistent...)
		}
	}

	text, stderr, _ := runBinary(t, "audit", "--root", root)
	var fromText []string
	fixLine := regexp.MustCompile(`^\s+(?:fix now|persist)\s+(.*)$`)
	col := 0 // the value column of the last fix label: its unlabelled next lines are more commands
	for _, l := range strings.Split(text, "\n") {
		if m := fixLine.FindStringSubmatch(l); m != nil {
			fromText = append(fromText, m[1])
			col = len(l) - len(m[1])
		} else if col > 0 && len(l) > col && strings.TrimSpace(l[:col]) == "" && l[col] != ' ' {
			fromText = append(fromText, l[col:])
		} else {
			col = 0
		}
		if strings.HasPrefix(strings.TrimSpace(l), "touch FORGED") {
			t.Errorf("audit text: the name's newline made a line: %q", l)
		}
	}
	md, _, _ := runBinary(t, "audit", "--root", root, "--format", "markdown")

	htmlFile := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := runBinary(t, "report", "--root", root, "-o", htmlFile); code != 0 && code != 1 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	page, err := os.ReadFile(htmlFile)
	if err != nil {
		t.Fatal(err)
	}
	var fromHTML []string
	for _, m := range regexp.MustCompile(`(?s)<code id="[^"]*-(?:run|persist)">(.*?)</code>`).FindAllStringSubmatch(string(page), -1) {
		fromHTML = append(fromHTML, strings.Split(html.UnescapeString(m[1]), "\n")...)
	}

	for name, cmds := range map[string][]string{"JSON": fromJSON, "text": fromText, "HTML copy": fromHTML} {
		hostile := hostileCommands(cmds)
		if len(hostile) < 3 {
			t.Errorf("%s: %d commands name the hostile disks and cgroup, want the cgroup's and each disk's:\n%s", name, len(hostile), strings.Join(cmds, "\n"))
		}
		for _, c := range hostile {
			if made := runFix(t, c); len(made) > 0 {
				t.Errorf("%s: pasting %q ran code from a name: created %v", name, c, made)
			}
		}
	}
	for name, out := range map[string]string{"text": text, "markdown": md, "HTML": string(page), "stderr": stderr} {
		if loc := rawControl.FindStringIndex(out); loc != nil {
			lo := max(0, loc[0]-40)
			t.Errorf("%s: raw control character: %q", name, out[lo:loc[1]])
		}
	}
	// An error naming a file: its name is escaped on stderr too.
	bad := filepath.Join(t.TempDir(), "snap\x1b]0;owned\x07.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	if _, stderr, code := runBinary(t, "audit", "--snapshot", bad); code != 2 || rawControl.MatchString(stderr) || !strings.Contains(stderr, `snap\x1b]0;owned\x07.json`) {
		t.Errorf("audit --snapshot of a name with ESC: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(text, `sdq\x1b]0;owned\x07\ntouch FORGED;#`) {
		t.Errorf("audit text does not show the name escaped:\n%s", text)
	}
}
