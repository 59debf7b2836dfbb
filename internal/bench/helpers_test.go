package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// testOptions gives a bench a private registry that the test checks is
// empty at the end: nothing a bench creates may survive it.
func testOptions(t *testing.T, d time.Duration) Options {
	t.Helper()
	dir := t.TempDir()
	reg, cleaned, err := OpenRegistry(dir, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	if len(cleaned) != 0 {
		t.Fatalf("fresh registry cleaned %v", cleaned)
	}
	t.Cleanup(func() {
		if err := reg.Close(); err != nil {
			t.Errorf("registry close: %v", err)
		}
		left, _ := filepath.Glob(filepath.Join(dir, "run-*"))
		if len(left) != 0 {
			t.Errorf("registry records left behind: %v", left)
		}
	})
	return Options{Duration: d, Repeat: 1, Version: "test", Registry: reg}
}

// ourQueues lists SysV message queues with dbhost's key prefix that this
// process used (other tests and other engineers' runs share the machine).
func ourQueues(t *testing.T) []SysVMsg {
	t.Helper()
	s, err := os.ReadFile("/proc/sysvipc/msg")
	if err != nil {
		return nil
	}
	qs, err := ParseSysVMsg(string(s))
	if err != nil {
		t.Fatal(err)
	}
	var out []SysVMsg
	for _, q := range qs {
		if uint32(q.Key)>>24 == mqKeyPrefix && (q.LSPID == os.Getpid() || q.LRPID == os.Getpid()) {
			out = append(out, q)
		}
	}
	return out
}

func wantIn(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s: missing %q in:\n%s", what, w, got)
		}
	}
}

// needLink skips a test that needs to create network namespaces and TUN
// devices unless this is Linux and root.
func needLink(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("emulated links need Linux")
	}
	if os.Geteuid() != 0 {
		t.Skip("emulated links need root (network namespaces, TUN devices); CI runs as root")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		t.Skip("no /dev/net/tun")
	}
}
