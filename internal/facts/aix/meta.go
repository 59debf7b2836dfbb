package aix

import (
	"github.com/dbhost/dbhost/internal/lazyre"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// BundleFormat is the meta "format:" line this dbhost reads.
const BundleFormat = "dbhost-aix-bundle 1"

// File is the bundle file holding a command's output: commands/ and the
// command line with every space replaced by "_" (and a "/" by ".", so a
// path argument stays one file name).
func File(command string) string {
	return "commands/" + strings.NewReplacer(" ", "_", "/", ".").Replace(strings.Join(strings.Fields(command), " "))
}

// meta is the bundle's meta file.
type meta struct {
	Bundle snapshot.AIXBundle
	TZ     *string // nil: no tz: line
	byCmd  map[string]snapshot.AIXCommand
}

var exitRe = lazyre.New(`^(.*?)\s*\(exit ([0-9]+)\)$`)

// parseMeta reads the bundle's meta: "key: value" lines (docs/aix.md).
func parseMeta(s string) (*meta, notes, error) {
	var n notes
	m := &meta{byCmd: map[string]snapshot.AIXCommand{}}
	m.Bundle.Commands = []snapshot.AIXCommand{}
	for i, l := range lines(s) {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || strings.Contains(k, " ") {
			n.add(i+1, "expected \"key: value\", got %q", trunc(strings.TrimSpace(l), 60))
			continue
		}
		switch k {
		case "format":
			m.Bundle.Format = v
		case "collector":
			m.Bundle.Collector = v
		case "hostname":
			m.Bundle.Hostname = v
		case "date":
			m.Bundle.Date = v
		case "user":
			m.Bundle.User = v
		case "tz":
			m.TZ = &v
		case "ran", "missing", "failed":
			c := snapshot.AIXCommand{Command: v, Status: map[string]string{"ran": "ok", "missing": "missing", "failed": "failed"}[k]}
			if mm := exitRe().FindStringSubmatch(v); mm != nil {
				c.Command = mm[1]
				c.ExitCode, _ = strconv.Atoi(mm[2])
			} else if k == "failed" {
				c.ExitCode = -1
				n.add(i+1, "%s: no \"(exit N)\"", trunc(v, 40))
			}
			if c.Command == "" {
				n.add(i+1, "%s: no command", k)
				continue
			}
			c.Command = strings.Join(strings.Fields(c.Command), " ")
			if k == "ran" && c.ExitCode != 0 {
				c.Status = "failed"
			}
			if c.Status == "missing" && c.ExitCode == 0 {
				c.ExitCode = 127 // the shell's "command not found"
			}
			if c.Status != "missing" {
				c.File = File(c.Command)
			}
			if _, dup := m.byCmd[c.Command]; dup {
				n.add(i+1, "%s listed twice; the first is kept", trunc(c.Command, 40))
				continue
			}
			m.byCmd[c.Command] = c
			m.Bundle.Commands = append(m.Bundle.Commands, c)
		}
		// Other keys: a newer collector's; ignored.
	}
	if m.Bundle.Format == "" {
		return nil, n, parseErr(0, "no \"format: %s\" line: not a dbhost AIX bundle's meta", BundleFormat)
	}
	if !strings.HasPrefix(m.Bundle.Format, "dbhost-aix-bundle ") {
		return nil, n, parseErr(0, "format %q; this dbhost reads %q", trunc(m.Bundle.Format, 40), BundleFormat)
	}
	sort.SliceStable(m.Bundle.Commands, func(i, j int) bool {
		a, b := m.Bundle.Commands[i], m.Bundle.Commands[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Command < b.Command
	})
	return m, n, nil
}
