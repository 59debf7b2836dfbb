package facts

import "strings"

// UdevAssign is one assignment of an attribute in a udev rules file.
type UdevAssign struct {
	Line  int
	Value string
}

// ParseUdevAssigns finds the assignments ATTR{attr}="value" (not the ==
// matches) in a udev rules file's text (udev(7): one rule per line, "\"
// at the end of a line continues it, "#" starts a comment line), with the
// line each rule starts on. verify uses it to name the rule that sets a
// sysfs attribute back.
func ParseUdevAssigns(text, attr string) []UdevAssign {
	var out []UdevAssign
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := lines[i]
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + lines[i]
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		needle := "ATTR{" + attr + "}"
		rest := line
		for {
			k := strings.Index(rest, needle)
			if k < 0 {
				break
			}
			rest = strings.TrimLeft(rest[k+len(needle):], " \t")
			if strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") {
				v := strings.TrimLeft(rest[1:], " \t")
				if strings.HasPrefix(v, `"`) {
					if e := strings.IndexByte(v[1:], '"'); e >= 0 {
						out = append(out, UdevAssign{Line: start, Value: v[1 : 1+e]})
					}
				}
			}
		}
	}
	return out
}
