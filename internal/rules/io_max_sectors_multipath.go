package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// io.max-sectors-multipath: max_sectors_kb of a dm-multipath device and its
// paths. The kernel rejects clones larger than a path's limit, so a path set
// below its multipath device fails I/O. When the paths fit there is nothing
// to say: 000 measured its own 16-path 3PAR LUNs at 512 KB and recommends
// 512 KB (Table 13); its 1 MB over 8 FC paths at 128 KB is an example of
// what "may be a benefit", not a setting, so no workload is told to split.
func init() {
	Register(Rule{
		ID:       "io.max-sectors-multipath",
		Area:     AreaIO,
		Severity: SevWarning,
		Title:    "max_sectors_kb of a multipath device does not fit its paths",
		Sources: []Source{
			{Doc: Seed000, Section: "max_sectors_kb",
				Quote: "The default value is 512 KB."},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "max_sectors_kb\t512 KB"},
		},
		Scope: Scope{
			Kernels: "all with request-based dm-multipath (2.6.31+); a path whose max_sectors_kb is below its dm device's logs \"blk_cloned_rq_check_limits: over max size limit\" and fails the I/O",
			Distros: "all",
		},
		Check: checkMaxSectorsMultipath,
	})
}

// largeIOKB is the size of the large (multiblock, full scan) I/O of 000's
// FIO Oracle profile: 1 MB sequential reads.
const largeIOKB = 1024

func checkMaxSectorsMultipath(in *Input) Outcome {
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var ok, cannot []string
	seen := 0
	for i := range v.devs {
		dm := &v.devs[i]
		if v.deviceClass(dm) != "multipath" {
			continue
		}
		seen++
		paths := v.paths(dm)
		if dm.MaxSectorsKB == nil {
			cannot = append(cannot, in.devReason(dm.Name, "max_sectors_kb"))
			continue
		}
		cur := *dm.MaxSectorsKB
		var small []string
		var desc []string
		minPath := int64(-1)
		for _, p := range paths {
			if p.MaxSectorsKB == nil {
				desc = append(desc, p.Name+" ?")
				continue
			}
			desc = append(desc, fmt.Sprintf("%s %d", p.Name, *p.MaxSectorsKB))
			if minPath < 0 || *p.MaxSectorsKB < minPath {
				minPath = *p.MaxSectorsKB
			}
			if *p.MaxSectorsKB < cur {
				small = append(small, p.Name)
			}
		}
		ev := fmt.Sprintf("%s = %d (%s); paths: %s", sysBlock(dm.Name, "queue/max_sectors_kb"), cur, describeDev(dm), strings.Join(desc, ", "))
		if dm.MaxHWSectorsKB != nil {
			ev += fmt.Sprintf("; max_hw_sectors_kb %d", *dm.MaxHWSectorsKB)
		}
		setAll := func(val int64) Fix {
			f := Fix{Runtime: []string{}, Persistent: []string{}}
			for _, p := range paths {
				f.Runtime = append(f.Runtime, echoTo(fmt.Sprint(val), sysBlock(p.Name, "queue/max_sectors_kb")))
			}
			f.Runtime = append(f.Runtime, echoTo(fmt.Sprint(val), sysBlock(dm.Name, "queue/max_sectors_kb")))
			if len(paths) > 0 {
				f.Edits = append(f.Edits, udevEdit(v, paths[0], "queue/max_sectors_kb", fmt.Sprint(val)))
			}
			f.Edits = append(f.Edits, udevEdit(v, dm, "queue/max_sectors_kb", fmt.Sprint(val)),
				FileEdit{File: "/etc/multipath.conf", Edit: "or, instead of the udev lines, add devices { device { vendor ... product ... max_sectors_kb " +
					fmt.Sprint(val) + " } } (multipath-tools 0.4.9+ sets dm and paths together)", Then: "multipathd reconfigure"})
			return f
		}
		setAllChanges := func(val int64, why string) []change.Change {
			var cs []change.Change
			for _, p := range paths {
				if p.MaxSectorsKB != nil && *p.MaxSectorsKB == val {
					continue
				}
				cs = append(cs, blockChange(v, p, "queue/max_sectors_kb", fmt.Sprint(val), optInt(p.MaxSectorsKB), "io.max-sectors-multipath", why))
			}
			if cur != val {
				cs = append(cs, blockChange(v, dm, "queue/max_sectors_kb", fmt.Sprint(val), fmt.Sprint(cur), "io.max-sectors-multipath", why))
			}
			return cs
		}
		if len(small) > 0 {
			fs = append(fs, Finding{
				Severity:    SevWarning,
				Setting:     sysBlock(dm.Name, "queue/max_sectors_kb"),
				Current:     fmt.Sprintf("%d on %s, %d on path(s) %s", cur, dm.Name, minPath, strings.Join(small, ",")),
				Recommended: fmt.Sprintf("the same value on the multipath device and every path (≤ %d)", minPath),
				Evidence:    ev,
				Why: "A request-based multipath device builds requests up to its own max_sectors_kb and clones them to a path; a clone larger " +
					"than the path's limit is rejected (\"over max size limit\") and the I/O fails over or errors. 000 sets max_sectors_kb on " +
					"every device (/sys/block/*/queue/max_sectors_kb) and keeps 512 KB.",
				Fix:     setAll(minPath),
				Changes: setAllChanges(minPath, "the multipath device's requests must fit every path's max_sectors_kb"),
				Risk:    "Lowering the dm device's value is safe at runtime; raising a path above max_hw_sectors_kb is refused by the kernel.",
			})
			continue
		}
		ok = append(ok, fmt.Sprintf("%s %d KB over %d path(s)", dm.Name, cur, len(paths)))
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if seen == 0 {
		return NotApplicable("no dm-multipath device")
	}
	if len(ok) == 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	return Passed("multipath max_sectors_kb consistent with the paths: %s", strings.Join(ok, "; ")).Reading("/sys/block/dm-*/queue/max_sectors_kb and its paths': " + strings.Join(ok, "; "))
}
