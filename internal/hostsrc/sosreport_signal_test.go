//go:build linux

package hostsrc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An interrupt while a sosreport is unpacked (or being read) removes the
// temporary tree and ends the process with 128+signal (130 for SIGINT). The child is this
// test binary, re-run with DBHOST_SOS_SIGNAL_CHILD set.
func TestOpenSosreportSignalCleanup(t *testing.T) {
	if arch := os.Getenv("DBHOST_SOS_SIGNAL_CHILD"); arch != "" {
		dir, _, err := OpenSosreport(arch)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		fmt.Println(dir)
		time.Sleep(time.Minute) // "collecting": the parent interrupts us here
		os.Exit(4)
	}
	tmp := isolateTemp(t)
	arch := writeArchive(t, "sos.tar.xz", compress(t, "xz", tarBytes(t, sosEntries())))
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenSosreportSignalCleanup$")
	cmd.Env = append(os.Environ(), "DBHOST_SOS_SIGNAL_CHILD="+arch, "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	dir := strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(dir, tmp) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q (%v)", line, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "proc/meminfo")); err != nil {
		t.Fatalf("child's tree not there: %v", err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("child did not exit 130 (128+SIGINT) on SIGINT: %v", err)
	}
	assertEmptyDir(t, tmp)
}
