package aix

import (
	"github.com/dbhost/dbhost/internal/lazyre"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

var (
	monthRe   = lazyre.New(`^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)$`)
	dayRe     = lazyre.New(`^[0-9]{1,2}$`)
	clockRe   = lazyre.New(`^[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?$`)
	dashLines = lazyre.New(`^[- ]+$`)
)

// parseMount reads AIX's `mount` (no arguments): a two-line header, then
// "[node] mounted mounted-over vfs Mon DD HH:MM [options]"; the node column
// is blank for a local file system.
func parseMount(s string) ([]snapshot.AIXMount, notes, error) {
	var n notes
	out := []snapshot.AIXMount{}
	header := false
	for i, l := range lines(s) {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if f[0] == "node" || dashLines().MatchString(l) {
			header = true
			continue
		}
		date := -1
		for j := 3; j+2 < len(f) && j <= 4; j++ {
			if monthRe().MatchString(f[j]) && dayRe().MatchString(f[j+1]) && clockRe().MatchString(f[j+2]) {
				date = j
				break
			}
		}
		var m snapshot.AIXMount
		var opts []string
		switch {
		case date == 3 || date == 4:
			if date == 4 {
				m.Node, f = f[0], f[1:]
			}
			m.Date = strings.Join(f[3:6], " ")
			opts = f[6:]
		case len(f) >= 3 && len(f) <= 5 && (l[0] == ' ' || l[0] == '\t') == (len(f) <= 4):
			// No date (some levels print none for a remote mount).
			if l[0] != ' ' && l[0] != '\t' {
				m.Node, f = f[0], f[1:]
			}
			opts = f[3:]
		default:
			n.add(i+1, "expected \"[node] mounted mounted-over vfs date options\", got %q", trunc(strings.TrimSpace(l), 60))
			continue
		}
		m.Device, m.Path, m.VFS = f[0], f[1], f[2]
		if len(opts) > 1 {
			n.add(i+1, "%s: options with spaces %q; the first word is read", m.Path, trunc(strings.Join(opts, " "), 40))
		}
		m.Options = []string{}
		if len(opts) > 0 {
			m.Options = splitComma(opts[0])
		}
		out = append(out, m)
	}
	if len(out) == 0 && !header {
		return nil, n, parseErr(0, "no mount line and no \"node mounted mounted over vfs date options\" header: not AIX mount output")
	}
	return out, n, nil
}

// parseLsfsQ reads `lsfs -q`: a header, then per file system "Name Nodename
// Mount-Pt VFS Size Options Auto Accounting" and, for JFS and JFS2, its
// superblock values in parentheses on the next line(s): "(lv size: N, fs
// size: N, block size: 4096, ...)". A parenthesized part cut over several
// lines is joined.
func parseLsfsQ(s string) ([]snapshot.AIXFilesystem, notes, error) {
	var n notes
	out := []snapshot.AIXFilesystem{}
	header := false
	ls := lines(s)
	for i := 0; i < len(ls); i++ {
		t := strings.TrimSpace(ls[i])
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "Name ") && strings.Contains(t, "Mount Pt") {
			header = true
			continue
		}
		if strings.HasPrefix(t, "(") {
			q := t
			start := i
			for !strings.Contains(q, ")") && i+1 < len(ls) && i-start < 10 {
				i++
				q += " " + strings.TrimSpace(ls[i])
			}
			if len(out) == 0 {
				n.add(start+1, "superblock values before any file system line")
				continue
			}
			fs := &out[len(out)-1]
			q = strings.TrimSuffix(strings.TrimPrefix(q, "("), ")")
			for _, kv := range strings.Split(q, ",") {
				k, v, ok := strings.Cut(kv, ":")
				k, v = strings.Join(strings.Fields(k), " "), strings.TrimSpace(v)
				if !ok || k == "" {
					if strings.TrimSpace(kv) != "" {
						n.add(start+1, "%s: expected \"key: value\" in the superblock values, got %q", fs.Mount, trunc(strings.TrimSpace(kv), 30))
					}
					continue
				}
				fs.Attributes[k] = v
				switch k {
				case "block size":
					if x, ok := parseInt(v); ok && x > 0 {
						fs.AGBlkSize = &x
					}
				case "frag size":
					if x, ok := parseInt(v); ok && x > 0 && fs.AGBlkSize == nil {
						fs.AGBlkSize = &x
					}
				case "inline log":
					fs.InlineLog = yesNo(v)
				}
			}
			continue
		}
		f := strings.Fields(t)
		if len(f) != 8 {
			n.add(i+1, "expected \"Name Nodename Mount-Pt VFS Size Options Auto Accounting\", got %q", trunc(t, 60))
			continue
		}
		fs := snapshot.AIXFilesystem{Name: f[0], Mount: f[2], VFS: f[3], Options: splitComma(f[5]),
			Auto: yesNo(f[6]), Accounting: yesNo(f[7]), Attributes: map[string]string{}}
		if f[1] != "--" {
			fs.Nodename = f[1]
		}
		if x, ok := parseInt(f[4]); ok && x >= 0 {
			fs.SizeBlocks = &x
		} else if f[4] != "--" {
			n.add(i+1, "%s: Size: expected 512-byte blocks, got %q", fs.Mount, trunc(f[4], 20))
		}
		out = append(out, fs)
	}
	if len(out) == 0 && !header {
		return nil, n, parseErr(0, "no \"Name Nodename Mount Pt VFS Size Options Auto Accounting\" header: not lsfs -q output")
	}
	return out, n, nil
}

// parseLsps reads `lsps -a`: "Page Space, Physical Volume, Volume Group,
// Size, %Used, Active, Auto, Type[, Chksum]" (Chksum from AIX 6.1).
func parseLsps(s string) ([]snapshot.AIXPagingSpace, notes, error) {
	var n notes
	out := []snapshot.AIXPagingSpace{}
	header := false
	for i, l := range lines(s) {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if f[0] == "Page" && len(f) > 1 && f[1] == "Space" {
			header = true
			continue
		}
		if len(f) != 8 && len(f) != 9 {
			n.add(i+1, "expected \"name pv vg size %%used active auto type [chksum]\", got %q", trunc(strings.TrimSpace(l), 60))
			continue
		}
		p := snapshot.AIXPagingSpace{Name: f[0], PV: f[1], VG: f[2], Active: yesNo(f[5]), Auto: yesNo(f[6]), Type: f[7]}
		if x, ok := sizeMB(f[3]); ok {
			p.SizeMB = &x
		} else {
			n.add(i+1, "%s: Size: expected such as 512MB, got %q", p.Name, trunc(f[3], 20))
		}
		if x, ok := atoi(f[4]); ok {
			p.UsedPct = &x
		}
		if len(f) == 9 {
			if x, ok := atoi(f[8]); ok {
				p.Chksum = &x
			}
		}
		out = append(out, p)
	}
	if len(out) == 0 && !header {
		return nil, n, parseErr(0, "no \"Page Space Physical Volume ...\" header: not lsps -a output")
	}
	return out, n, nil
}
