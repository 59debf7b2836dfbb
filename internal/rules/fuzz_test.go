package rules

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// FuzzKernel: a kernel release as uname -r prints it (major.minor, then
// anything that does not start with a digit: ".0-427.el9.x86_64",
// "-rc1", "") with the numbers the fuzzer chose gives them back; any
// release accepted starts with the major number and a dot.
func FuzzKernel(f *testing.F) {
	for _, s := range []string{"5.14.0-427.el9.x86_64", "3.10.0", "6.18.44-fc-v769", "", "5", "x.y", "4.18-rc1"} {
		f.Add(s, uint16(5), uint16(14), ".0-427.el9.x86_64")
	}
	f.Fuzz(func(t *testing.T, s string, maj, min uint16, suffix string) {
		if a, b, ok := Kernel(s); ok && (a < 0 || b < 0 || !strings.HasPrefix(s, strings.SplitN(s, ".", 2)[0]+".")) {
			t.Fatalf("Kernel(%q) = %d.%d", s, a, b)
		}
		if suffix != "" && suffix[0] >= '0' && suffix[0] <= '9' {
			suffix = "." + suffix
		}
		release := fmt.Sprintf("%d.%d%s", maj, min, suffix)
		if a, b, ok := Kernel(release); !ok || a != int(maj) || b != int(min) {
			t.Fatalf("Kernel(%q) = %d.%d %v, want %d.%d", release, a, b, ok, maj, min)
		}
		if _, _, ok := Kernel(fmt.Sprintf("%d%s", maj, suffix)); ok && !strings.HasPrefix(suffix, ".") {
			t.Fatalf("Kernel(%q) accepted a release without a minor number", fmt.Sprintf("%d%s", maj, suffix))
		}
	})
}

// FuzzRunSnapshot: any snapshot a user can hand to --snapshot (parsed the
// way the CLI parses it) runs through every rule, workload and database
// without a rule crashing; findings always carry id, severity and sources.
func FuzzRunSnapshot(f *testing.F) {
	b, _ := json.Marshal(host())
	f.Add(b)
	s := host()
	s.Host.CmdlineArgs["numa"] = "off"
	s.Sysctl["kernel.numa_balancing"] = "1"
	s.Memory.SysVShm = []snapshot.ShmSegment{{SizeBytes: 1 << 40, UID: 1}}
	s.Cgroups.Groups = []snapshot.CgroupGroup{{Path: "/x", CPUs: ptr("0-3"), Mems: ptr("1")}}
	b, _ = json.Marshal(s)
	f.Add(b)
	f.Add([]byte(`{"schema_version":1}`))
	a := aixHost()
	a.AIX.VmstatV[aixPbufLabel] = 10
	a.AIX.FCAdapters[0].NoCommandResourceCount = ptr(int64(3))
	a.AIX.Disks[0].Description, a.AIX.Disks[0].Generic = "Other FC SCSI Disk Drive", true
	b, _ = json.Marshal(a)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		snap, err := snapshot.Parse("fuzz.json", b)
		if err != nil {
			return
		}
		for _, w := range Workloads {
			for _, db := range DBs {
				rep := Run(&Input{Snap: snap, Workload: w, DB: db})
				for _, c := range rep.CannotCheck {
					if strings.Contains(c.Reason, "internal error") {
						t.Fatalf("%s/%s: %s", w, db, c.Reason)
					}
				}
				for _, f := range rep.Findings {
					if f.ID == "" || SeverityRank(f.Severity) == 0 || len(f.Sources) == 0 {
						t.Fatalf("incomplete finding %+v", f)
					}
				}
			}
		}
	})
}
