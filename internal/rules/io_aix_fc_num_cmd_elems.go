package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.aix-fc-num-cmd-elems: a Fibre Channel adapter's command queue
// (num_cmd_elems) against its disks' queues: 004's rule of thumb, the sum
// of the disks' queue_depth over the adapters, and fcstat -e's "No Command
// Resource Count" (the adapter ran out of command elements).
func init() {
	Register(Rule{
		ID:       "io.aix-fc-num-cmd-elems",
		Area:     AreaIO,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX FC adapter num_cmd_elems below its disks' queues (fcstat No Command Resource Count)",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "This queue has the same role for the HBS as the qdepth for the disk."},
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "Rule of thumb: nb_cmd_elems= (sum of qdepth) / nb HBA"},
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "No Command Resource Count: 0"},
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "These changes use more memory and must be made with caution, check first with : # fcstat fcsX"},
		},
		Scope: Scope{
			Kernels: "AIX (lsattr -El fcsN, fcstat -e fcsN, lsattr -El hdiskN, lspath)",
			Note:    "the disks counted are those with a path through an fscsi device (lspath), else those lsdev describes as FC; a virtual FC (NPIV) client's queue also needs the VIOS's physical adapter to hold it",
		},
		Description: `Each FC adapter has a command queue (num_cmd_elems) playing for the adapter the role
queue_depth plays for a disk. 004's rule of thumb: num_cmd_elems = (sum of the disks' queue_depth) /
number of adapters. fcstat -e's "No Command Resource Count" counts, since the adapter was configured,
the I/Os that found no free command element: above 0 the queue is too small. Below the rule of thumb
with the counter at 0 the adapter has not run out yet: info.`,
		Check: checkAIXFCNumCmdElems,
	})
}

// aixFCDisks are the disks behind the FC adapters and their queue_depth
// sum: disks with a path through an fscsi device, else (no lspath) disks
// lsdev describes as FC. unknown names disks whose queue_depth is absent.
func aixFCDisks(a *snapshot.AIX) (n int, sum int64, unknown []string) {
	for _, d := range a.Disks {
		fc := false
		for _, p := range d.Paths {
			fc = fc || strings.HasPrefix(p.Parent, "fscsi")
		}
		if len(d.Paths) == 0 {
			fc = strings.Contains(d.Description, "FC") || strings.Contains(d.Description, "Fibre")
		}
		if !fc {
			continue
		}
		if d.QueueDepth == nil {
			unknown = append(unknown, d.Name)
			continue
		}
		n++
		sum += *d.QueueDepth
	}
	return n, sum, unknown
}

// aixNoFC is the outcome of an FC rule on a host without FC adapters to
// judge: lsdev -Cc adapter absent (could not check) or listing none (not
// applicable); none is false when there are adapters.
func aixNoFC(s *snapshot.Snapshot) (out Outcome, none bool) {
	switch {
	case s.AIX.FCAdapters == nil:
		return CannotCheck("%s", aixWhy(s, "aix.fc_adapters", "lsdev -Cc adapter")), true
	case len(s.AIX.FCAdapters) == 0:
		return NotApplicable("no Fibre Channel adapter (lsdev -Cc adapter)"), true
	}
	return Outcome{}, false
}

func checkAIXFCNumCmdElems(in *Input) Outcome {
	s := in.Snap
	a := s.AIX
	if out, none := aixNoFC(s); none {
		return out
	}
	hbas := 0
	for _, f := range a.FCAdapters {
		if f.Status == "" || f.Status == "Available" {
			hbas++
		}
	}
	nDisks, sumQD, unknownQD := 0, int64(0), []string(nil)
	disksWhy := ""
	if a.Disks == nil {
		disksWhy = aixWhy(s, "aix.disks", "lsdev -Cc disk")
	} else {
		nDisks, sumQD, unknownQD = aixFCDisks(a)
	}
	need := int64(0)
	if hbas > 0 {
		need = (sumQD + int64(hbas) - 1) / int64(hbas)
	}
	thumb := fmt.Sprintf("%d FC disk(s) with queue_depth adding up to %d over %d available adapter(s): %d per adapter", nDisks, sumQD, hbas, need)
	if len(unknownQD) > 0 {
		thumb += fmt.Sprintf(" (queue_depth unknown for %s: not counted)", aixNames(unknownQD))
	}
	var fs []Finding
	var cannot, ok []string
	for _, f := range a.FCAdapters {
		if f.NumCmdElems == nil {
			cannot = append(cannot, f.Name+": "+aixWhy(s, "aix.fc_adapters.attributes", "lsattr -El "+f.Name)+" (num_cmd_elems)")
			continue
		}
		cur := *f.NumCmdElems
		starved := f.NoCommandResourceCount != nil && *f.NoCommandResourceCount > 0
		below := disksWhy == "" && hbas > 0 && cur < need
		if !starved && !below {
			if f.NoCommandResourceCount == nil && disksWhy != "" {
				cannot = append(cannot, f.Name+": "+aixWhy(s, "aix.fc_adapters.no_command_resource_count", "fcstat -e "+f.Name)+"; "+disksWhy)
				continue
			}
			ok = append(ok, fmt.Sprintf("%s num_cmd_elems %d", f.Name, cur))
			continue
		}
		want := max(need, cur)
		if starved {
			want = max(want, 2*cur)
		}
		sev := SevWarning
		var ev []string
		ev = append(ev, fmt.Sprintf("lsattr -El %s: num_cmd_elems %d", f.Name, cur))
		if f.NoCommandResourceCount != nil {
			ev = append(ev, fmt.Sprintf("fcstat -e %s: No Command Resource Count %d", f.Name, *f.NoCommandResourceCount))
		}
		if disksWhy == "" {
			ev = append(ev, thumb)
		}
		why := "004: the adapter's num_cmd_elems queue plays for the HBA the role queue_depth plays for a disk; rule of thumb " +
			"num_cmd_elems = (sum of qdepth) / number of HBAs."
		if starved {
			why += fmt.Sprintf(" fcstat counted %d I/Os that found no free command element on %s: they waited in AIX.", *f.NoCommandResourceCount, f.Name)
		} else {
			sev = SevInfo
			why += " Its No Command Resource Count is 0 (or unknown): the adapter has not run out yet; the disks' queues can outrun it under load."
		}
		fs = append(fs, Finding{
			Severity:    sev,
			Setting:     f.Name + ":num_cmd_elems",
			Current:     fmt.Sprintf("num_cmd_elems %d", cur),
			Recommended: fmt.Sprintf("num_cmd_elems %d (within the adapter's range: lsattr -Rl %s -a num_cmd_elems)", want, f.Name),
			Evidence:    strings.Join(ev, "; "),
			Why:         why,
			Fix: Fix{
				Runtime: []string{
					"fcstat -e " + sh(f.Name) + "   # 004: check first",
					"lsattr -Rl " + sh(f.Name) + " -a num_cmd_elems   # the values this adapter accepts",
					fmt.Sprintf("chdev -l %s -a num_cmd_elems=%d -P   # recorded in the ODM, in effect at the next reboot", sh(f.Name), want),
				},
				Persistent: []string{fmt.Sprintf("the ODM keeps num_cmd_elems=%d (lsattr -El %s -a num_cmd_elems)", want, f.Name)},
			},
			RebootRequired: true,
			Risk: "004: \"These changes use more memory and must be made with caution\". Without -P the adapter and every device " +
				"below it must be unconfigured (rmdev -Rl " + f.Name + ": the disks' volume groups varied off), so -P and a reboot " +
				"is the usual way. On a virtual FC (NPIV) client the VIOS's physical adapter must be raised at least as much.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(cannot) > 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	msg := strings.Join(ok, ", ") + ": no command element shortage counted by fcstat -e"
	if disksWhy == "" {
		msg += "; " + thumb
	}
	return Passed("%s", msg).Reading("lsattr -El, fcstat -e: " + msg)
}
