package aix

import (
	"strconv"
	"strings"
)

// fcstatInfo is what fcstat -e says about one adapter.
type fcstatInfo struct {
	Name                   string // from "FIBRE CHANNEL STATISTICS REPORT: fcs0"
	PortSpeed              string
	PortSpeedGbit          *float64
	NoDMAResourceCount     *int64
	NoAdapterElementsCount *int64
	NoCommandResourceCount *int64
	EffectiveMaxTransfer   *int64
	Stats                  map[string]string
}

// parseFcstat reads `fcstat -e fcsN`: "Label: value" lines, grouped under
// headings ("FC SCSI Adapter Driver Information", "IP over FC Adapter
// Driver Information", "FC-4 TYPES:") that end at a blank line. The three
// resource counters are the FC SCSI driver's (the IP over FC driver
// prints two of the same labels).
func parseFcstat(s string) (*fcstatInfo, notes, error) {
	var n notes
	fi := &fcstatInfo{Stats: map[string]string{}}
	section := ""
	counters := map[string]*int64{}
	for i, l := range lines(s) {
		t := strings.TrimSpace(l)
		if t == "" {
			section = ""
			continue
		}
		if strings.HasPrefix(t, "---") || strings.HasPrefix(t, "Transmit Statistics") {
			continue
		}
		if name, ok := strings.CutPrefix(t, "FIBRE CHANNEL STATISTICS REPORT:"); ok {
			fi.Name = strings.TrimSpace(name)
			continue
		}
		k, v, ok := keyValue(t)
		if !ok {
			section = strings.Join(strings.Fields(t), " ")
			continue
		}
		if v == "" {
			section = k
			continue
		}
		key := k
		if section != "" {
			key = section + "/" + k
		}
		if _, dup := fi.Stats[key]; !dup {
			fi.Stats[key] = v
		}
		num := func() *int64 {
			f := strings.Fields(v)
			if len(f) == 0 {
				return nil
			}
			x, ok := parseInt(f[0])
			if !ok || x < 0 {
				n.add(i+1, "%s: expected a count, got %q", k, trunc(v, 30))
				return nil
			}
			return &x
		}
		scsi := section == "" || strings.Contains(section, "SCSI")
		switch {
		case k == "Port Speed (running)":
			fi.PortSpeed = v
			f := strings.Fields(v)
			if len(f) == 2 {
				if x, err := strconv.ParseFloat(f[0], 64); err == nil && x >= 0 && x < 1e6 {
					switch strings.ToUpper(f[1]) {
					case "GBIT":
						fi.PortSpeedGbit = &x
					case "MBIT":
						x /= 1000
						fi.PortSpeedGbit = &x
					}
				}
			}
		case scsi && (k == "No DMA Resource Count" || k == "No Adapter Elements Count" || k == "No Command Resource Count"):
			if _, dup := counters[k]; dup && section == "" {
				continue // the FC SCSI section's value wins over an unsectioned one
			}
			if p := num(); p != nil {
				counters[k] = p
			}
		case strings.HasSuffix(k, "Effective max transfer value"):
			fi.EffectiveMaxTransfer = num()
		}
	}
	fi.NoDMAResourceCount = counters["No DMA Resource Count"]
	fi.NoAdapterElementsCount = counters["No Adapter Elements Count"]
	fi.NoCommandResourceCount = counters["No Command Resource Count"]
	if len(fi.Stats) == 0 {
		return nil, n, parseErr(0, "no \"Label: value\" line: not fcstat output")
	}
	return fi, n, nil
}
