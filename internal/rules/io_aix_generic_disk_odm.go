package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.aix-generic-disk-odm: hdisks that AIX configured with its generic ODM
// definition ("Other FC SCSI Disk Drive", ...): no vendor definition and no
// multipath driver, so queue_depth 1 and no path management.
func init() {
	Register(Rule{
		ID:       "io.aix-generic-disk-odm",
		Area:     AreaIO,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX disks use the generic ODM definition (no vendor driver: queue_depth 1)",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : Disk Subsystem Advices",
				Quote: "then it means that AIX doesn't have a correct definition of your disk device in the ODM and use a generic device definition"},
			{Doc: Seed004, Section: "IO : Disk Subsystem Advices",
				Quote: "exemple : hdisk are created with a queue_depth=1"},
			{Doc: Seed004, Section: "IO : Disk Subsystem Advices",
				Quote: "don't forget to install a multipath device driver or path control module"},
		},
		Scope: Scope{
			Kernels: "AIX (lsdev -Cc disk, lsattr -El hdiskN)",
			Note:    "virtual SCSI disks (Virtual SCSI Disk Drive) are the VIOS's business: their ODM definition lives on the VIOS",
		},
		Description: `lsdev -Cc disk describes a disk whose storage vendor's ODM definition is not installed
with the word "Other" ("Other FC SCSI Disk Drive", "MPIO Other FC SCSI Disk Drive"). Such a disk
gets generic attributes — queue_depth 1 among them, one I/O at a time to an array that could
serve dozens — and, without a multipath driver or path control module, no load balancing over
the adapters. 004: install the vendor's ODM definition (host attachment kit) and its multipath
driver (SDDPCM for IBM DS8000, PowerPath for EMC, HDLM for Hitachi ...).`,
		Check: checkAIXGenericDiskODM,
	})
}

func checkAIXGenericDiskODM(in *Input) Outcome {
	s := in.Snap
	if s.AIX.Disks == nil {
		return CannotCheck("%s", aixWhy(s, "aix.disks", "lsdev -Cc disk"))
	}
	var generic []snapshot.AIXDisk
	for _, d := range s.AIX.Disks {
		if d.Generic || aixGenericDescription(d.Description) {
			generic = append(generic, d)
		}
	}
	if len(generic) == 0 {
		var read []string
		for _, d := range s.AIX.Disks {
			read = append(read, d.Name+" "+d.Description)
		}
		return Passed("%d disk(s), none with a generic (\"Other ...\") ODM definition (lsdev -Cc disk)", len(s.AIX.Disks)).
			Reading("lsdev -Cc disk: " + strings.Join(read, "; "))
	}
	sort.Slice(generic, func(i, j int) bool { return aixDiskLess(generic[i].Name, generic[j].Name) })
	var names, ev []string
	qd1 := 0
	for _, d := range generic {
		names = append(names, d.Name)
		line := fmt.Sprintf("%s %s %q", d.Name, d.Status, d.Description)
		if d.QueueDepth != nil {
			line += fmt.Sprintf(", queue_depth %d", *d.QueueDepth)
			if *d.QueueDepth <= 1 {
				qd1++
			}
		}
		if len(d.Paths) > 1 {
			line += fmt.Sprintf(", %d paths", len(d.Paths))
		}
		ev = append(ev, line)
	}
	cur := fmt.Sprintf("%d disk(s) with a generic ODM definition: %s", len(generic), aixNames(names))
	if qd1 > 0 {
		cur += fmt.Sprintf(" (%d at queue_depth 1)", qd1)
	}
	return Found(Finding{
		Setting:     "hdisk ODM definition",
		Current:     cur,
		Recommended: "the storage vendor's ODM definition and multipath driver / path control module for these disks",
		Evidence:    "lsdev -Cc disk: " + strings.Join(ev, "; "),
		Why: "004: a generic device definition \"provides far from optimal performance since it doesn't properly customize the hdisk " +
			"device\" — hdisks are created with queue_depth 1, one outstanding I/O per LUN — and without a multipath driver the " +
			"paths over several FC adapters are not balanced.",
		Fix: Fix{
			Runtime: []string{
				"lsdev -Cc disk; lspath   # note the disks, their volume groups (lspv) and paths",
				"install the vendor's ODM fileset / host attachment kit and its multipath driver or PCM (IBM: SDDPCM or AIX PCM, EMC: PowerPath or the EMC ODM, Hitachi: HDLM): installp -acgXYd <media> <fileset>",
				"varyoffvg <vg>; rmdev -dl <hdiskN> (each listed disk); cfgmgr   # the disks come back with the vendor definition",
				"lsdev -Cc disk; lsattr -El <hdiskN> -a queue_depth -a algorithm -a reserve_policy   # check, then set the vendor's queue_depth",
			},
			Persistent: []string{"the ODM definitions are persistent once the disks are reconfigured (rmdev/cfgmgr, or a reboot)"},
		},
		Pending: PendingManual,
		Risk: "The disks must be unconfigured and rediscovered: their volume groups varied off (the database stopped), or a " +
			"reboot. Install only the definition and driver your storage vendor supports for this AIX level; a rootvg disk " +
			"needs a reboot. Set reserve_policy no_reserve on shared (RAC, PowerHA) disks before varying them on again.",
	})
}

// aixGenericDescription is lsdev's description of a disk without a vendor
// definition: it holds the word "Other" ("Other FC SCSI Disk Drive",
// "MPIO Other FC SCSI Disk Drive", "Other iSCSI Disk Drive").
func aixGenericDescription(d string) bool {
	for _, w := range strings.Fields(d) {
		if w == "Other" {
			return true
		}
	}
	return false
}

// aixNames lists device names, the first ten and a count of the rest.
func aixNames(names []string) string {
	if len(names) <= 10 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
}
