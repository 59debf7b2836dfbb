package aix

import (
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// psRow is one line of ps -ef.
type psRow struct {
	User, STime, TTY, Time, Cmd string
	PID, PPID                   int
}

// parsePsEf reads AIX's `ps -ef`: "UID PID PPID C STIME TTY TIME CMD",
// STIME being a time of day (09:15:02) or a date of two words (Nov 10); a
// zombie prints "<defunct>" in place of STIME, TTY, TIME and CMD.
func parsePsEf(s string) ([]psRow, notes, error) {
	var n notes
	out := []psRow{}
	header := false
	for i, l := range lines(s) {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if f[0] == "UID" && len(f) > 1 && f[1] == "PID" {
			header = true
			continue
		}
		pid, ok1 := atoi(safe(f, 1))
		ppid, ok2 := atoi(safe(f, 2))
		if len(f) < 5 || !ok1 || !ok2 {
			n.add(i+1, "expected \"UID PID PPID C STIME TTY TIME CMD\", got %q", trunc(strings.TrimSpace(l), 60))
			continue
		}
		r := psRow{User: f[0], PID: pid, PPID: ppid}
		rest := f[4:]
		if rest[0] == "<defunct>" {
			r.Cmd = "<defunct>"
			out = append(out, r)
			continue
		}
		if monthRe().MatchString(rest[0]) && len(rest) > 1 {
			r.STime, rest = rest[0]+" "+rest[1], rest[2:]
		} else {
			r.STime, rest = rest[0], rest[1:]
		}
		if len(rest) < 2 {
			n.add(i+1, "PID %d: expected TTY, TIME and CMD after STIME, got %q", pid, trunc(strings.TrimSpace(l), 60))
			continue
		}
		r.TTY, r.Time = rest[0], rest[1]
		r.Cmd = strings.Join(rest[2:], " ")
		out = append(out, r)
	}
	if len(out) == 0 && !header {
		return nil, n, parseErr(0, "no \"UID PID PPID C STIME TTY TIME CMD\" header and no process line: not ps -ef output")
	}
	return out, n, nil
}

func safe(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

// dbProcesses keeps the database processes of ps -ef, named as on Linux
// (facts.DBProcesses).
func dbProcesses(rows []psRow) []snapshot.AIXProcess {
	lines := make([]facts.PSLine, len(rows))
	byPID := map[int]psRow{}
	for i, r := range rows {
		lines[i] = facts.PSLine{PID: r.PID, PPID: r.PPID, User: r.User, Command: r.Cmd}
		byPID[r.PID] = r
	}
	out := []snapshot.AIXProcess{}
	for _, p := range facts.DBProcesses(lines) {
		r := byPID[p.PID]
		out = append(out, snapshot.AIXProcess{User: r.User, PID: p.PID, PPID: p.PPID, STime: r.STime, TTY: r.TTY, Time: r.Time,
			Cmd: p.Cmdline, Engine: p.Engine, Role: p.Role, Instance: p.Instance})
	}
	return out
}

// parseLsuser reads `lsuser -a capabilities USER...`: "name
// capabilities=CAP_A,CAP_B" per user ("capabilities=" when empty; a user
// without the attribute prints its name alone).
func parseLsuser(s string) ([]snapshot.AIXUser, notes, error) {
	var n notes
	out := []snapshot.AIXUser{}
	for i, l := range lines(s) {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if strings.ContainsAny(f[0], "=:\"") || len(f) > 2 || strings.HasPrefix(f[0], "3004-") {
			n.add(i+1, "expected \"user capabilities=...\", got %q", trunc(strings.TrimSpace(l), 60))
			continue
		}
		u := snapshot.AIXUser{Name: f[0], Capabilities: []string{}}
		if len(f) == 2 {
			v, ok := strings.CutPrefix(f[1], "capabilities=")
			if !ok {
				n.add(i+1, "%s: expected capabilities=..., got %q", u.Name, trunc(f[1], 40))
				continue
			}
			u.Capabilities = splitComma(v)
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		if len(n) > 0 {
			return nil, n, parseErr(n[0].Line, "%s", n[0].Msg)
		}
		return nil, n, parseErr(0, "no user line")
	}
	return out, n, nil
}

// parseLsrset reads `lsrset -av`: a header "T Name Owner Group Mode CPU
// Memory [Resources]", then per resource set its line ("r sys/sys0 root
// system r----- 16 32768 ...") and verbose lines "CPU: 0-15", "MEM: ...".
func parseLsrset(s string) ([]snapshot.AIXRset, notes, error) {
	var n notes
	out := []snapshot.AIXRset{}
	header := false
	for i, l := range lines(s) {
		t := strings.TrimSpace(l)
		f := strings.Fields(t)
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "T" && len(f) > 1 && f[1] == "Name":
			header = true
		case strings.HasPrefix(t, "CPU:"):
			if len(out) == 0 {
				n.add(i+1, "CPU: line before any resource set")
				continue
			}
			v := strings.TrimSpace(strings.TrimPrefix(t, "CPU:"))
			c, err := aixCPUList(v)
			if err != nil {
				n.add(i+1, "%s: CPU list %q: %v", out[len(out)-1].Name, trunc(v, 30), err)
				continue
			}
			out[len(out)-1].CPUs = append(out[len(out)-1].CPUs, c...)
		case strings.HasPrefix(t, "MEM:"):
			if len(out) == 0 {
				n.add(i+1, "MEM: line before any resource set")
				continue
			}
			out[len(out)-1].Memory = strings.TrimSpace(strings.TrimPrefix(t, "MEM:"))
		case len(f) >= 7 && len(f[0]) == 1:
			r := snapshot.AIXRset{Type: f[0], Name: f[1], Owner: f[2], Group: f[3], Mode: f[4]}
			if x, ok := atoi(f[5]); ok {
				r.CPUCount = &x
			}
			if x, err := strconv.ParseInt(f[6], 10, 64); err == nil && x >= 0 {
				r.MemoryCount = &x
			}
			out = append(out, r)
		default:
			n.add(i+1, "expected \"T Name Owner Group Mode CPU Memory\" or a CPU:/MEM: line, got %q", trunc(t, 60))
		}
	}
	if len(out) == 0 && !header {
		return nil, n, parseErr(0, "no \"T Name Owner Group Mode CPU Memory\" header: not lsrset -av output")
	}
	for i := range out {
		if out[i].CPUs == nil {
			out[i].CPUs = []int{}
		} else if c, err := cpulist.Parse(cpulist.Format(out[i].CPUs)); err == nil {
			out[i].CPUs = c // sorted, duplicates merged
		}
	}
	sortBy(out, func(r snapshot.AIXRset) string { return r.Name })
	return out, n, nil
}
