package facts

import (
	"strconv"
	"strings"
)

// parseVlanConfig parses /proc/net/vlan/config into VLAN device → parent:
//
//	VLAN Dev name	 | VLAN ID
//	Name-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD
//	eth0.100       | 100  | eth0
func parseVlanConfig(s string) (map[string]string, error) {
	out := map[string]string{}
	lineNo := 0
	for line := range strings.Lines(s) {
		lineNo++
		line = strings.TrimSuffix(line, "\n")
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "VLAN Dev name") || strings.HasPrefix(t, "Name-Type:") {
			continue
		}
		f := strings.Split(t, "|")
		if len(f) != 3 {
			return nil, parseErr(lineNo, "expected \"dev | id | parent\", got %q", trunc(t, 60))
		}
		dev, id, parent := strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), strings.TrimSpace(f[2])
		if n, err := strconv.Atoi(id); err != nil || n < 0 || n > 4095 {
			return nil, parseErr(lineNo, "expected a VLAN id 0-4095, got %q", trunc(id, 20))
		}
		if dev == "" || parent == "" || strings.ContainsAny(dev+parent, " \t") {
			return nil, parseErr(lineNo, "expected device names, got %q", trunc(t, 60))
		}
		out[dev] = parent
	}
	return out, nil
}
