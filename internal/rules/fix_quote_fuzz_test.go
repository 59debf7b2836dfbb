package rules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzFixCommandsQuoteNames (issue 24, item 4): whatever a host names its
// disks (sda's and the NVMe disk's names replaced by one with a ;touch
// MARK;# in it, sdb's vendor too), every fix command of every rule that
// names them, run by a shell as a DBA pastes it, runs no part of the name:
// MARK is never created. The shell runs in a directory of its own with the
// host paths moved under it and only touch on its PATH.
func FuzzFixCommandsQuoteNames(f *testing.F) {
	touch, err := exec.LookPath("touch")
	if err != nil {
		f.Skip("no touch")
	}
	for _, s := range []string{"k", "", " ", "'", `"`, "$(x)", "\n", "\x1b]0;t\x07", "`x`", "*", "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, x string) {
		if strings.ContainsAny(x, "/\x00") {
			t.Skip("a kernel name holds no / or NUL")
		}
		name := "sd" + x + ";touch MARK;#"
		s := sanHost()
		for i := range s.Storage.Devices {
			switch d := &s.Storage.Devices[i]; d.Name {
			case "sda", "nvme0n1":
				d.Name = name + d.Name
			case "sdb":
				d.Vendor = name
			}
		}
		rep := Run(&Input{Snap: s, Workload: WorkloadOLTP, DB: DBOracle})
		dir := t.TempDir()
		bin := filepath.Join(dir, "bin")
		os.Mkdir(bin, 0o755)
		os.Symlink(touch, filepath.Join(bin, "touch"))
		n := 0
		for _, fd := range rep.Findings {
			for _, c := range append(append([]string{}, fd.Fix.Runtime...), fd.Fix.Persistent...) {
				if !strings.Contains(c, "MARK") {
					continue
				}
				n++
				if i := strings.Index(c, "   ("); i > 0 {
					c = c[:i]
				}
				for _, p := range []string{"/sys/", "/dev/", "/proc/", "/etc/"} {
					c = strings.ReplaceAll(c, p, dir+"/host"+p)
				}
				cmd := exec.Command("/bin/sh", "-c", c)
				cmd.Dir, cmd.Env = dir, []string{"PATH=" + bin, "HOME=" + dir}
				cmd.Run()
				if _, err := os.Stat(filepath.Join(dir, "MARK")); err == nil {
					t.Fatalf("%s: pasting %q ran part of the name %q", fd.ID, c, name)
				}
			}
		}
		if n == 0 {
			t.Fatalf("no fix command names the disks %q: the test checks nothing", name)
		}
	})
}
