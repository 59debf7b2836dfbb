package aix

import (
	"github.com/dbhost/dbhost/internal/lazyre"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// dscrLineRe is one "name = value" line of `dscrctl -q`, the value's
// symbolic name in parentheses when printed:
//
//	Current DSCR settings:
//	    Data Streams Version = V2.06
//	    number_of_streams = 16
//	    platform_default_pd = 0x5 (DPFD_DEEP)
//	    os_default_pd = 0xd (DSCR_SSE | DPFD_DEEP)
var dscrLineRe = lazyre.New(`^\s*([A-Za-z][A-Za-z_ ]*?)\s*=\s*(\S+)\s*(?:\(([^()]*)\))?\s*$`)

// parseDscrctl reads `dscrctl -q` (AIX 6.1 TL6 and later; POWER7 and
// later): the number of hardware streams and the platform's and the
// operating system's default DSCR, with the prefetch depth in force.
func parseDscrctl(s string) (*snapshot.AIXDSCR, notes, error) {
	var n notes
	d := &snapshot.AIXDSCR{}
	known := false
	for i, l := range lines(s) {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "Current DSCR settings") {
			continue
		}
		m := dscrLineRe().FindStringSubmatch(l)
		if m == nil {
			n.add(i+1, "expected \"name = value\", got %q", trunc(t, 50))
			continue
		}
		name, val, sym := strings.ToLower(strings.Join(strings.Fields(m[1]), " ")), m[2], strings.TrimSpace(m[3])
		num, isNum := parseInt(val)
		switch {
		case name == "data streams version":
			d.StreamsVersion, known = val, true
		case name == "number_of_streams" && isNum && num >= 0 && num < 1<<31:
			d.NumberOfStreams, known = ptr(int(num)), true
		case name == "platform_default_pd" && isNum && num >= 0:
			d.PlatformDefaultPD, d.PlatformDefaultPDName, known = &num, sym, true
		case name == "os_default_pd" && isNum && num >= 0:
			d.OSDefaultPD, d.OSDefaultPDName, known = &num, sym, true
		case name == "number_of_streams", name == "platform_default_pd", name == "os_default_pd":
			n.add(i+1, "%s: %q is not a DSCR value", name, trunc(val, 30))
		}
		// Other names: a newer AIX's; ignored.
	}
	if !known {
		return nil, n, parseErr(0, "no line of dscrctl -q (\"number_of_streams = 16\", \"os_default_pd = 0x0\")")
	}
	// The depth in force: the OS's default, or the platform's when the
	// OS's DPFD is 0 (DPFD_DEFAULT).
	var depth *int
	if d.OSDefaultPD != nil {
		if x := int(*d.OSDefaultPD & 7); x != 0 {
			depth = &x
		} else if d.PlatformDefaultPD != nil {
			depth = ptr(int(*d.PlatformDefaultPD & 7))
		}
	}
	if depth != nil {
		d.PrefetchDepth, d.PrefetchOff = depth, ptr(*depth == 1)
	}
	return d, n, nil
}
