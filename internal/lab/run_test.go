package lab

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// encodeSection is what the guest's section() writes (busybox base64 wraps at 76).
func encodeSection(name string, data []byte, rc int) string {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	b := base64.StdEncoding.EncodeToString(z.Bytes())
	var sb strings.Builder
	sb.WriteString(markBegin + name + "\r\n")
	for len(b) > 76 {
		sb.WriteString(b[:76] + "\r\n")
		b = b[76:]
	}
	sb.WriteString(b + "\n")
	fmt.Fprintf(&sb, "%s%s rc=%d\n", markEnd, name, rc)
	return sb.String()
}

func TestParseChannel(t *testing.T) {
	json := bytes.Repeat([]byte(`{"schema_version":1}`), 200)
	in := "noise before\n" + encodeSection("collect", json, 0) + encodeSection("guest", []byte("node 0 write=0 read=4\n"), 3) + markDone + "\n"
	ch, err := parseChannel([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Done || !bytes.Equal(ch.Sections["collect"].Data, json) || ch.Sections["collect"].RC != 0 {
		t.Fatalf("collect section not round-tripped: done=%v rc=%d len=%d", ch.Done, ch.Sections["collect"].RC, len(ch.Sections["collect"].Data))
	}
	if g := ch.Sections["guest"]; g.RC != 3 || string(g.Data) != "node 0 write=0 read=4\n" {
		t.Fatalf("guest section: %+v", g)
	}
	// Without DONE: parsed, but not done.
	ch, err = parseChannel([]byte(encodeSection("collect", json, 0)))
	if err != nil || ch.Done {
		t.Fatalf("no DONE: err %v done %v", err, ch.Done)
	}
	full := encodeSection("collect", json, 0)
	bad := map[string]string{
		"cut off":         full[:len(full)/2],
		"corrupt base64":  strings.Replace(full, "\n", "\n!!!!\n", 2),
		"not gzip":        markBegin + "x\n" + base64.StdEncoding.EncodeToString([]byte("plain")) + "\n" + markEnd + "x rc=0\n",
		"end of other":    markBegin + "a\n" + markEnd + "b rc=0\n",
		"nested":          markBegin + "a\n" + markBegin + "b\n",
		"repeated":        full + full,
		"bad rc":          strings.Replace(full, "rc=0", "rc=x", 1),
		"done in section": markBegin + "a\n" + markDone + "\n",
		"end without rc":  markBegin + "a\n" + markEnd + "a\n",
		"truncated gzip":  markBegin + "a\n" + base64.StdEncoding.EncodeToString(gz(json)[:20]) + "\n" + markEnd + "a rc=0\n",
	}
	for name, s := range bad {
		if _, err := parseChannel([]byte(s)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func gz(b []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// readCpio is an independent newc reader for the test.
func readCpio(t *testing.T, b []byte) map[string]cpioFile {
	t.Helper()
	out := map[string]cpioFile{}
	for off := 0; ; {
		if off+110 > len(b) || string(b[off:off+6]) != "070701" {
			t.Fatalf("bad header at %d", off)
		}
		f := func(i int) int {
			v, err := strconv.ParseUint(string(b[off+6+8*i:off+14+8*i]), 16, 32)
			if err != nil {
				t.Fatal(err)
			}
			return int(v)
		}
		mode, size, rmaj, rmin, nsize := f(1), f(6), f(9), f(10), f(11)
		name := string(b[off+110 : off+110+nsize-1])
		if b[off+110+nsize-1] != 0 {
			t.Fatalf("%s: name not NUL-terminated", name)
		}
		off += 110 + nsize
		off += (4 - off%4) % 4
		data := b[off : off+size]
		off += size
		off += (4 - off%4) % 4
		if name == "TRAILER!!!" {
			if off != len(b) {
				t.Fatalf("%d bytes after the trailer", len(b)-off)
			}
			return out
		}
		out[name] = cpioFile{Name: name, Mode: uint32(mode), Data: data, Major: uint32(rmaj), Minor: uint32(rmin)}
	}
}

func TestInitramfs(t *testing.T) {
	var buf bytes.Buffer
	if err := writeCpioGz(&buf, baseInitramfs([]byte("BB"), []byte("DBHOSTBIN"), []string{"sh", "mount", "base64", "../evil", ""})); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	files := readCpio(t, raw)
	if f := files["init"]; f.Mode != modeFile|0o755 || !strings.Contains(string(f.Data), "dbhost collect --format json") {
		t.Errorf("init: mode %o", f.Mode)
	}
	if f := files["bin/dbhost"]; string(f.Data) != "DBHOSTBIN" || f.Mode&0o111 == 0 {
		t.Errorf("bin/dbhost: %+v", f)
	}
	if f := files["bin/mount"]; f.Mode != modeLink|0o777 || string(f.Data) != "busybox" {
		t.Errorf("bin/mount: %+v", f)
	}
	if f := files["dev/console"]; f.Mode != modeChar|0o600 || f.Major != 5 || f.Minor != 1 {
		t.Errorf("dev/console: %+v (the kernel needs it for init's stdio)", f)
	}
	if _, ok := files["bin/../evil"]; ok {
		t.Error("an applet name with a slash was written")
	}
	if err := writeCpio(io.Discard, []cpioFile{{Name: "/abs"}}); err == nil {
		t.Error("absolute name accepted")
	}
	// The scenario archive only carries the guest snippet.
	if f := scenarioInitramfs(&Scenario{Guest: "echo hi"}); len(f) != 1 || f[0].Name != "lab/guest.sh" {
		t.Errorf("scenario archive: %+v", f)
	}
	if f := scenarioInitramfs(&Scenario{}); f != nil {
		t.Errorf("no guest snippet, no archive: %+v", f)
	}
}

func TestParseKernelPackage(t *testing.T) {
	out := "linux-image-amd64\n  Depends: linux-image-6.1.0-56-amd64\n"
	if p, err := parseKernelPackage(out); err != nil || p != "linux-image-6.1.0-56-amd64" {
		t.Fatalf("got %q %v", p, err)
	}
	alt := "linux-image-amd64\n |Depends: linux-image-6.12.9-amd64\n  Depends: linux-image-6.12.8-amd64\n  Recommends: firmware\n"
	if p, _ := parseKernelPackage(alt); p != "linux-image-6.12.9-amd64" {
		t.Fatalf("alternatives: got %q", p)
	}
	for _, bad := range []string{"", "linux-image-amd64\n", "  Depends: libc6\n", "  Depends: linux-image-amd64\n", "  Depends: <linux-image-x>\n"} {
		if p, err := parseKernelPackage(bad); err == nil {
			t.Errorf("%q: got %q", bad, p)
		}
	}
}

func fakeBzImage(payload []byte, withHeader bool) []byte {
	const setupSects = 3
	b := make([]byte, (setupSects+1)*512+100)
	if withHeader {
		b[0x1f1] = setupSects
		copy(b[0x202:], "HdrS")
		binary.LittleEndian.PutUint16(b[0x206:], 0x20f)
		binary.LittleEndian.PutUint32(b[0x248:], 100)
		binary.LittleEndian.PutUint32(b[0x24c:], uint32(len(payload)))
	}
	b = append(b, payload...)
	return append(b, "trailing junk after the payload"...)
}

func TestXZPayload(t *testing.T) {
	payload := append(append([]byte{}, xzMagic...), "compressed kernel\x00\x01\x02\x03"...)
	got, err := xzPayload(fakeBzImage(payload, true))
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("from the setup header: %q %v", got, err)
	}
	got, err = xzPayload(fakeBzImage(payload, false))
	if err != nil || !bytes.HasPrefix(got, payload) {
		t.Fatalf("magic scan fallback: %q %v", got, err)
	}
	if _, err := xzPayload(fakeBzImage([]byte("gzip payload"), true)); err == nil {
		t.Fatal("a non-XZ kernel accepted")
	}
	if _, err := xzPayload(nil); err == nil {
		t.Fatal("empty input accepted")
	}
}

// TestRunQEMUReapsProcessGroup runs a stand-in "QEMU" that starts a child
// and hangs: on timeout both must be gone (the whole group is killed).
func TestRunQEMUReapsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	fake := filepath.Join(dir, "qemu")
	doneFile := filepath.Join(dir, "done")
	// "done" appears only if the child ends on its own (after 300 s): runQEMU
	// must return through its timeout, killing the group, long before.
	script := "#!/bin/sh\nsleep 300 &\necho $! > " + pidFile + "\nwait\necho done > " + doneFile + "\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	err := runQEMU(context.Background(), fake, nil, filepath.Join(dir, "qemu.log"), 1*time.Second, nil)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("want a timeout, got %v", err)
	}
	if _, err := os.Stat(doneFile); err == nil {
		t.Fatalf("runQEMU waited for the stand-in to finish instead of killing it at its timeout")
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// The child was killed with the group; it is reaped by init, so poll briefly.
	for i := 0; i < 50; i++ {
		if syscall.Kill(pid, 0) != nil || isZombie(pid) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("child %d of the fake QEMU survived the timeout", pid)
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// TestRunQEMUBootWatchdog: a "QEMU" whose guest never reaches /init is
// killed at BootTimeout with errNoUserspace (run1 retries it and reports
// the retry), not at the scenario's timeout; one that reaches it (its INIT
// line on the results channel) runs to its end.
func TestRunQEMUBootWatchdog(t *testing.T) {
	defer func(d time.Duration) { BootTimeout = d }(BootTimeout)
	BootTimeout = 1500 * time.Millisecond
	dir := t.TempDir()
	data := filepath.Join(dir, "data.log")
	up := func() bool { return booted(data) }
	stuck := filepath.Join(dir, "stuck")
	os.WriteFile(stuck, []byte("#!/bin/sh\necho 'MP-BIOS bug: 8254 timer not connected to IO-APIC'\nexec sleep 300\n"), 0o755)
	t0 := time.Now()
	err := runQEMU(context.Background(), stuck, nil, filepath.Join(dir, "qemu.log"), time.Minute, up)
	// No wall-clock bound (machines here are noisy): without the watchdog
	// the run ends at its own minute with another error.
	if !errors.Is(err, errNoUserspace) {
		t.Fatalf("a boot that never reaches /init: %v after %s, want errNoUserspace after %s", err, time.Since(t0), BootTimeout)
	}
	boots := filepath.Join(dir, "boots")
	os.WriteFile(boots, []byte("#!/bin/sh\necho 'junk\n"+markInit+" 3.14' > "+data+"\nsleep 3\n"), 0o755)
	if err := runQEMU(context.Background(), boots, nil, filepath.Join(dir, "qemu.log"), time.Minute, up); err != nil {
		t.Fatalf("a guest that reached /init and ran past BootTimeout: %v", err)
	}
}

func TestRunQEMUCancelled(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "qemu")
	os.WriteFile(fake, []byte("#!/bin/sh\nexec sleep 300\n"), 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	err := runQEMU(ctx, fake, nil, filepath.Join(dir, "qemu.log"), time.Minute, nil)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("want interrupted, got %v", err)
	}
}

func TestLockExcludes(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, dir, nil); err == nil {
		t.Fatal("a second lock was granted while the first is held")
	}
	unlock()
	u2, err := Lock(context.Background(), dir, nil)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	u2()
}

// TestRunWithFakeQEMU drives Run end to end without QEMU: a stand-in writes
// a results channel (a snapshot of the expected topology, the guest hook's
// output and a $LAB_OUT file) to the second -serial file.
func TestRunWithFakeQEMU(t *testing.T) {
	s := scenarioNamed("memoryless-cpuless") // memoryless-cpuless: has a guest hook and a Check
	dir := t.TempDir()
	good, err := snapshot.Marshal(goodSnapshot(s))
	if err != nil {
		t.Fatal(err)
	}
	probe := "node 0 write=0 read=4\nnode 1 write=0 read=0\nnode 2 write=0 read=4\ncpuset mems=1 write=0 mems=1 effective=0,2 root=0,2\n"
	channel := func(snap []byte) string {
		return encodeSection("collect", snap, 0) + encodeSection("collect-stderr", nil, 0) +
			encodeSection("guest", []byte(probe), 0) +
			encodeSection("out/node1-meminfo", []byte("Node 1 MemTotal:       0 kB\n"), 0) + markDone + "\n"
	}
	fake := filepath.Join(dir, "qemu")
	chanFile := filepath.Join(dir, "channel")
	// The data file is the second -serial argument; also record the arguments.
	script := `#!/bin/sh
n=0
for a in "$@"; do
	case "$a" in file:*) n=$((n+1)); [ $n -eq 2 ] && cp ` + chanFile + ` "${a#file:}";; esac
	echo "$a" >> ` + filepath.Join(dir, "args") + `
done
`
	os.WriteFile(fake, []byte(script), 0o755)
	base := filepath.Join(dir, "base.cpio.gz")
	os.WriteFile(base, gz([]byte("base")), 0o644)
	a := &Assets{CacheDir: dir, QEMU: fake, Kernel: "/nonexistent/vmlinux", Initramfs: base}

	os.WriteFile(chanFile, []byte(channel(good)), 0o644)
	r := Run(context.Background(), a, s, RunOptions{})
	if !r.OK() {
		t.Fatalf("expected a pass: err %v mismatches %v", r.Err, r.Mismatches)
	}
	if r.Snapshot == nil || len(r.Snapshot.Topology.Nodes) != 3 || r.GuestRC != 0 || string(r.Files["node1-meminfo"]) == "" {
		t.Fatalf("result not filled: %+v", r)
	}
	if _, err := os.Stat(r.Dir); !os.IsNotExist(err) {
		t.Errorf("a passing run's directory is kept: %v", err)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if !strings.Contains(string(args), "node,nodeid=1,cpus=2-3\n") {
		t.Errorf("fake QEMU did not get the scenario's -numa arguments:\n%s", args)
	}

	// A wrong topology: the run fails, says what differs, keeps the directory.
	wrong := goodSnapshot(s)
	wrong.Topology.Nodes[1].CPUs = []int{}
	bad, _ := snapshot.Marshal(wrong)
	os.WriteFile(chanFile, []byte(channel(bad)), 0o644)
	r = Run(context.Background(), a, s, RunOptions{})
	if r.OK() || len(r.Mismatches) == 0 || !strings.Contains(strings.Join(r.Mismatches, "\n"), "node 1 cpus: expected [2 3], got []") {
		t.Fatalf("wrong topology not reported: err %v mismatches %v", r.Err, r.Mismatches)
	}
	for _, f := range []string{"data.log", "qemu.cmd", "initrd.cpio.gz", "snapshot.json"} {
		if _, err := os.Stat(filepath.Join(r.Dir, f)); err != nil {
			t.Errorf("failed run lost %s: %v", f, err)
		}
	}
	// The initrd is the base image with the scenario's archive appended.
	initrd, _ := os.ReadFile(filepath.Join(r.Dir, "initrd.cpio.gz"))
	if !bytes.HasPrefix(initrd, gz([]byte("base"))) || len(initrd) <= len(gz([]byte("base"))) {
		t.Error("initrd is not base + scenario archive")
	}

	// A guest that died before DONE, and one that sent nothing.
	os.WriteFile(chanFile, []byte(encodeSection("collect", good, 0)), 0o644)
	if r = Run(context.Background(), a, s, RunOptions{}); r.Err == nil {
		t.Error("a channel without the guest section and DONE passed")
	}
	os.WriteFile(chanFile, nil, 0o644)
	if r = Run(context.Background(), a, s, RunOptions{}); r.Err == nil || !strings.Contains(r.Err.Error(), "no snapshot") {
		t.Errorf("an empty channel: %v", r.Err)
	}
}

// TestNegativeControl: the plain -numa scenario passes only when the kernel
// renumbered the node holding CPU 0 and the comparison said so.
func TestNegativeControl(t *testing.T) {
	s := scenarioNamed("eight-node-plain-numa")
	dir := t.TempDir()
	chanFile := filepath.Join(dir, "channel")
	fake := filepath.Join(dir, "qemu")
	os.WriteFile(fake, []byte(`#!/bin/sh
n=0
for a in "$@"; do case "$a" in file:*) n=$((n+1)); [ $n -eq 2 ] && cp `+chanFile+` "${a#file:}";; esac; done
`), 0o755)
	base := filepath.Join(dir, "base.cpio.gz")
	os.WriteFile(base, gz([]byte("base")), 0o644)
	a := &Assets{CacheDir: dir, QEMU: fake, Kernel: "/nonexistent", Initramfs: base}
	send := func(snap *snapshot.Snapshot) *Result {
		b, _ := snapshot.Marshal(snap)
		os.WriteFile(chanFile, []byte(encodeSection("collect", b, 0)+markDone+"\n"), 0o644)
		return Run(context.Background(), a, s, RunOptions{})
	}
	if r := send(goodSnapshot(s)); r.OK() {
		t.Error("the layout came out as asked, yet the negative control passed")
	}
	renumbered := goodSnapshot(s)
	n := renumbered.Topology.Nodes
	n[0].CPUs, n[1].CPUs, n[2].CPUs, n[3].CPUs, n[4].CPUs = []int{0, 15}, []int{1, 2}, []int{3, 4}, []int{5, 6}, []int{7, 8}
	if r := send(renumbered); !r.OK() {
		t.Errorf("renumbered kernel not accepted as the expected difference: %v %v", r.Err, r.Mismatches)
	}
}
