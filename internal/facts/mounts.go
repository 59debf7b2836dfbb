package facts

import (
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() { register("mounts", StageSources, readMounts, "storage.mounts") }

// pseudoFS are the filesystem types left out of Storage.Mounts: kernel
// interfaces, not storage. tmpfs, hugetlbfs, devtmpfs, network and disk
// filesystems are kept.
var pseudoFS = map[string]bool{
	"proc": true, "sysfs": true, "cgroup": true, "cgroup2": true, "devpts": true,
	"securityfs": true, "debugfs": true, "tracefs": true, "bpf": true, "pstore": true,
	"configfs": true, "mqueue": true, "fusectl": true, "binfmt_misc": true, "autofs": true,
	"rpc_pipefs": true, "nsfs": true, "efivarfs": true,
}

// parseMounts parses /proc/mounts ("device path fstype options dump pass"),
// decoding the kernel's octal escapes (\040 space, \011 tab, \012 newline,
// \134 backslash) and leaving out pseudo filesystems. Order is kept: it is
// the mount order, which decides what is over-mounted.
func parseMounts(s string) ([]snapshot.Mount, error) {
	out := []snapshot.Mount{}
	lineNo := 0
	for line := range strings.Lines(s) {
		lineNo++
		line = strings.TrimSuffix(line, "\n")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 || len(f) > 6 {
			return nil, parseErr(lineNo, "expected \"device path fstype options [dump pass]\", got %q", trunc(line, 60))
		}
		fstype := unescapeMount(f[2])
		if pseudoFS[fstype] {
			continue
		}
		m := snapshot.Mount{Device: unescapeMount(f[0]), Path: unescapeMount(f[1]), FSType: fstype}
		if !strings.HasPrefix(m.Path, "/") {
			return nil, parseErr(lineNo, "expected an absolute mount point, got %q", trunc(f[1], 40))
		}
		m.Options = strings.Split(f[3], ",")
		for i, o := range m.Options {
			m.Options[i] = unescapeMount(o)
		}
		out = append(out, m)
	}
	return out, nil
}

// unescapeMount decodes \ooo octal escapes as the kernel's seq_escape writes
// them; anything else (a lone backslash, \9) is kept literally.
func unescapeMount(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			v := (s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0')
			if s[i+1] <= '3' { // \400 and up would not fit in a byte
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func readMounts(c *Collector) {
	st := &c.Snap.Storage
	st.Mounts = []snapshot.Mount{}
	p := "/proc/mounts"
	b, err := c.Root.ReadFile(p)
	if err != nil {
		if b2, err2 := c.Root.ReadFile("/proc/self/mounts"); err2 == nil {
			p, b, err = "/proc/self/mounts", b2, nil
		}
	}
	if err != nil {
		c.Absent("storage.mounts", p, err)
		return
	}
	ms, err := parseMounts(string(b))
	if err != nil {
		c.Absent("storage.mounts", p, err)
		return
	}
	st.Mounts = ms
}
