package facts

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
)

// parsePasswd parses passwd(5) lines into name → uid and uid → name (the
// first name listed for a uid, as getpwuid returns). Lines that are not
// "name:pw:uid:..." with a numeric uid (NIS "+" entries, garbage) are
// skipped; bad counts them.
func parsePasswd(r io.Reader) (users map[string]int, names map[int]string, bad int) {
	users, names = map[string]int{}, map[int]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) < 4 || f[0] == "" || strings.HasPrefix(f[0], "+") || strings.HasPrefix(f[0], "-") {
			bad++
			continue
		}
		uid, err := strconv.Atoi(f[2])
		if err != nil || uid < 0 {
			bad++
			continue
		}
		if _, dup := users[f[0]]; !dup {
			users[f[0]] = uid
		}
		if _, dup := names[uid]; !dup {
			names[uid] = f[0]
		}
	}
	return users, names, bad
}

// readPasswd reads the root's /etc/passwd; nils and an absence under fact when it cannot.
func (c *Collector) readPasswd(fact string) (map[string]int, map[int]string) {
	b, err := c.readConfigFile("/etc/passwd")
	if err != nil {
		c.Absent(fact, "/etc/passwd", err)
		return nil, nil
	}
	u, n, _ := parsePasswd(bytes.NewReader(b))
	return u, n
}
