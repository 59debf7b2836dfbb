package facts

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// limitItems are the items pam_limits(8) knows (limits.conf(5)).
var limitItems = map[string]bool{
	"core": true, "data": true, "fsize": true, "memlock": true, "nofile": true, "rss": true,
	"stack": true, "cpu": true, "nproc": true, "as": true, "maxlogins": true, "maxsyslogins": true,
	"nonewprivs": true, "priority": true, "locks": true, "sigpending": true, "msgqueue": true,
	"nice": true, "rtprio": true, "chroot": true,
}

// parseLimits parses limits.conf(5): "<domain> <type> <item> <value>" per
// line; '#' starts a comment anywhere on a line. Entries come back with Line
// set and File empty. Each line pam_limits would reject is returned as a
// *ParseError and left out; the other lines are kept.
func parseLimits(r io.Reader) ([]snapshot.LimitEntry, []error) {
	var out []snapshot.LimitEntry
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			errs = append(errs, parseErr(n, "expected \"domain type item value\", got %d words", len(f)))
			continue
		}
		typ, item := strings.ToLower(f[1]), strings.ToLower(f[2])
		if typ != "soft" && typ != "hard" && typ != "-" {
			errs = append(errs, parseErr(n, "expected type soft, hard or -, got %q", trunc(f[1], 20)))
			continue
		}
		if !limitItems[item] {
			errs = append(errs, parseErr(n, "unknown limit item %q", trunc(f[2], 20)))
			continue
		}
		if !validLimitValue(item, f[3]) {
			errs = append(errs, parseErr(n, "expected a number, unlimited or infinity for %s, got %q", item, trunc(f[3], 20)))
			continue
		}
		out = append(out, snapshot.LimitEntry{Line: n, Domain: f[0], Type: typ, Item: item, Value: f[3]})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, parseErr(n+1, "%v", err))
	}
	return out, errs
}

func validLimitValue(item, v string) bool {
	switch strings.ToLower(v) {
	case "unlimited", "infinity", "-1":
		return true
	}
	if item == "chroot" {
		return v != ""
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return true
	}
	return false
}

func readLimits(c *Collector) []snapshot.LimitEntry {
	out := []snapshot.LimitEntry{}
	files := []string{"/etc/security/limits.conf"}
	const dir = "/etc/security/limits.d"
	if names, err := c.Root.ReadDirNames(dir); err == nil {
		for _, n := range names {
			if strings.HasSuffix(n, ".conf") && !strings.HasPrefix(n, ".") {
				files = append(files, dir+"/"+n)
			}
		}
	}
	for _, f := range files {
		b, err := c.readConfigFile(f)
		if err != nil {
			if f == files[0] || !os.IsNotExist(err) {
				c.Absent("config.limits", f, err)
			}
			continue
		}
		ents, errs := parseLimits(bytes.NewReader(b))
		for _, e := range errs {
			c.lineAbsent("config.limits", f, e)
		}
		for _, e := range ents {
			e.File = f
			out = append(out, e)
		}
	}
	return out
}
