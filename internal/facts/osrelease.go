package facts

import (
	"bufio"
	"io"
	"strings"
)

// parseOSRelease parses os-release(5) KEY=value lines.
func parseOSRelease(r io.Reader) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		m[strings.TrimSpace(k)] = v
	}
	return m
}

// releaseFiles are the pre-os-release files: path → os-release ID.
var releaseFiles = []struct{ path, id string }{
	{"/etc/oracle-release", "ol"}, {"/etc/centos-release", "centos"}, {"/etc/redhat-release", "rhel"}, {"/etc/SuSE-release", "sles"},
}

// parseReleaseLine reads "NAME release X.Y (Codename)" (Red Hat family) or
// SuSE-release's first line and "VERSION = 11" / "PATCHLEVEL = 4" lines.
func parseReleaseLine(s string) (name, version string) {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	name = strings.TrimSpace(lines[0])
	if _, rest, ok := strings.Cut(name, " release "); ok {
		version, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
		return name, version
	}
	var major, patch string
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, "=")
		switch strings.TrimSpace(k) {
		case "VERSION":
			major = strings.TrimSpace(v)
		case "PATCHLEVEL":
			patch = strings.TrimSpace(v)
		}
	}
	if major != "" && patch != "" && patch != "0" {
		return name, major + "." + patch
	}
	return name, major
}

// readReleaseFile names the system from the first vendor release file found.
func readReleaseFile(c *Collector) (name, id, version, file string, ok bool) {
	for _, f := range releaseFiles {
		s, err := c.Root.ReadString(f.path)
		if err != nil || strings.TrimSpace(s) == "" {
			continue
		}
		name, version = parseReleaseLine(s)
		return name, f.id, version, f.path, true
	}
	return "", "", "", "", false
}
