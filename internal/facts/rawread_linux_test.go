package facts

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// In a tree, a FIFO never blocks a read and a device node is never read
// (here /dev/zero's numbers, which would otherwise read 64 MiB of zeros,
// and a disk's would read the live disk); both are refused with the reason,
// whole-file reads and attribute reads alike, through the sysReader too.
func TestTreeSpecialFilesRefused(t *testing.T) {
	dir := topoTree(t, map[string]string{"/sys/devices/system/cpu/cpu0/online": "1\n"})
	fifo := dir + "/sys/devices/system/cpu/cpu0/fifo"
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	zero := dir + "/sys/devices/system/cpu/cpu0/zero"
	hasDev := syscall.Mknod(zero, syscall.S_IFCHR|0o644, 1<<8|5) == nil
	root, err := Root{Dir: dir}.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	paths := []string{"/sys/devices/system/cpu/cpu0/fifo"}
	if hasDev {
		paths = append(paths, "/sys/devices/system/cpu/cpu0/zero")
	} else {
		t.Log("mknod not permitted here (not root, or a nodev file system): the device case is not run")
	}
	done := make(chan string, 1)
	go func() {
		var msgs []string
		rd := newSysReader(root)
		rd.enter("/sys/devices/system/cpu/cpu0")
		for _, p := range paths {
			_, e1 := root.ReadFile(p)
			_, e2 := root.ReadAttr(p)
			_, e3 := rd.read(p)
			for _, e := range []error{e1, e2, e3} {
				if e == nil || !strings.Contains(Reason(e), "not a regular file") {
					msgs = append(msgs, p+": "+Reason(e))
				}
			}
		}
		rd.leave()
		done <- strings.Join(msgs, "; ")
	}()
	select {
	case m := <-done:
		if m != "" {
			t.Errorf("special files read: %s", m)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a read of a FIFO in a tree blocked")
	}
}
