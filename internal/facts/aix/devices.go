package aix

import (
	"github.com/dbhost/dbhost/internal/lazyre"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// locationRe is a logical location code of lsdev -C ("00-08-00",
// "02-00-01", "C3-T1", "00-00-00-1,0"): two characters, then
// hyphen-separated parts. A virtual device has none.
var locationRe = lazyre.New(`^[0-9A-Za-z]{2}(-[0-9A-Za-z,]+)+$`)

// deviceStatus are the states lsdev prints.
var deviceStatus = map[string]bool{"Available": true, "Defined": true, "Stopped": true, "Unknown": true}

// parseLsdev reads `lsdev -Cc CLASS`: "name status [location] description".
func parseLsdev(s string) ([]snapshot.AIXDevice, notes, error) {
	var n notes
	out := []snapshot.AIXDevice{}
	seen := map[string]bool{}
	for i, l := range lines(s) {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 || !deviceStatus[f[1]] {
			n.add(i+1, "expected \"name Available|Defined [location] description\", got %q", trunc(strings.TrimSpace(l), 50))
			continue
		}
		d := snapshot.AIXDevice{Name: f[0], Status: f[1]}
		rest := f[2:]
		if len(rest) > 0 && locationRe().MatchString(rest[0]) {
			d.Location, rest = rest[0], rest[1:]
		}
		d.Description = strings.Join(rest, " ")
		if seen[d.Name] {
			n.add(i+1, "%s listed twice; the first line is kept", d.Name)
			continue
		}
		seen[d.Name] = true
		out = append(out, d)
	}
	if len(out) == 0 && len(n) > 0 {
		return nil, n, parseErr(n[0].Line, "%s", n[0].Msg)
	}
	sortDevices(out)
	return out, n, nil
}

func sortDevices(d []snapshot.AIXDevice) {
	sortBy(d, func(x snapshot.AIXDevice) string { return x.Name })
}

// genericDiskRe matches AIX's generic disk definitions ("Other SCSI Disk
// Drive", "Other FC SCSI Disk Drive", "Other iSCSI Disk Drive", "Other SAS
// Disk Drive"): the disk has no vendor ODM definition.
var genericDiskRe = lazyre.New(`^Other\b.*\bDisk Drive$`)

// GenericDisk reports whether an lsdev description is AIX's generic disk
// definition.
func GenericDisk(desc string) bool { return genericDiskRe().MatchString(strings.TrimSpace(desc)) }

// parseLsattr reads `lsattr -El DEVICE`: "attribute value description
// settable" in aligned columns, the last being True, False or True+ (AIX
// 7.1+: changeable while the device is in use). An empty value (a disk's
// "location") leaves its column blank: the line's second word then starts
// in the description column, which the other lines show.
func parseLsattr(s string) (map[string]snapshot.AIXAttr, notes, error) {
	var n notes
	out := map[string]snapshot.AIXAttr{}
	ls := lines(s)
	valCol, descCol := lsattrColumns(ls)
	for i, l := range ls {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 || strings.Contains(f[0], ":") {
			n.add(i+1, "expected \"attribute value description True|False\", got %q", trunc(strings.TrimSpace(l), 50))
			continue
		}
		var a snapshot.AIXAttr
		rest := f[1:]
		st := yesNo(strings.TrimSuffix(rest[len(rest)-1], "+"))
		if st == nil || len(rest) < 2 {
			n.add(i+1, "expected \"attribute value description True|False\" (no settable column), got %q", trunc(strings.TrimSpace(l), 50))
			continue
		}
		a.Settable = st
		rest = rest[:len(rest)-1]
		second := fieldStart(l, 1)
		val := rest[0]
		desc := rest[1:]
		if descCol > valCol && second >= descCol-1 && second > valCol+1 {
			val, desc = "", rest
		}
		v := value(val)
		a.Value, a.Kind, a.Number = v.Value, v.Kind, v.Number
		if a.Kind == "n/a" {
			a.Kind = "text"
		}
		a.Description = strings.Join(desc, " ")
		if _, dup := out[f[0]]; dup {
			n.add(i+1, "attribute %s listed twice; the first is kept", f[0])
			continue
		}
		out[f[0]] = a
	}
	if len(out) == 0 {
		if len(n) > 0 {
			return nil, n, parseErr(n[0].Line, "%s", n[0].Msg)
		}
		return nil, n, parseErr(0, "no \"attribute value description True|False\" line")
	}
	return out, n, nil
}

// fieldStart is the byte offset of line's k-th field (0-based), -1 when
// it has fewer.
func fieldStart(l string, k int) int {
	in := false
	for i := 0; i < len(l); i++ {
		sp := l[i] == ' ' || l[i] == '\t'
		if !sp && !in {
			if k == 0 {
				return i
			}
			k--
		}
		in = !sp
	}
	return -1
}

// lsattrColumns finds where lsattr's value and description columns start:
// the offsets most lines start their second and third words at.
func lsattrColumns(ls []string) (val, desc int) {
	mode := func(k int) int {
		count := map[int]int{}
		best, bestN := -1, 0
		for _, l := range ls {
			if len(strings.Fields(l)) < 4 {
				continue
			}
			p := fieldStart(l, k)
			count[p]++
			if count[p] > bestN || count[p] == bestN && p < best {
				best, bestN = p, count[p]
			}
		}
		return best
	}
	return mode(1), mode(2)
}

// parseLspath reads `lspath`: "status name parent [connection]", per disk.
func parseLspath(s string) (map[string][]snapshot.AIXPath, notes, error) {
	var n notes
	out := map[string][]snapshot.AIXPath{}
	for i, l := range lines(s) {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 || len(f) > 4 || !pathStatus[f[0]] {
			n.add(i+1, "expected \"status name parent\", got %q", trunc(strings.TrimSpace(l), 50))
			continue
		}
		p := snapshot.AIXPath{Status: f[0], Parent: f[2]}
		if len(f) == 4 {
			p.Connection = f[3]
		}
		out[f[1]] = append(out[f[1]], p)
	}
	if len(out) == 0 && len(n) > 0 {
		return nil, n, parseErr(n[0].Line, "%s", n[0].Msg)
	}
	return out, n, nil
}

// pathStatus are the path states lspath prints.
var pathStatus = map[string]bool{"Enabled": true, "Disabled": true, "Failed": true, "Defined": true, "Missing": true, "Available": true, "Detected": true}
