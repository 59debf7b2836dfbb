package rules

import (
	"fmt"
)

// io.aix-io-pacing: disk I/O pacing (sys0 maxpout/minpout) left at the old
// HACMP values (33/24) or anywhere below AIX 6.1's defaults 8193/4096: 002
// measured large sequential writes halved (213.55 → 109.64 MB/s).
func init() {
	Register(Rule{
		ID:       "io.aix-io-pacing",
		Area:     AreaIO,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX disk I/O pacing (sys0 maxpout/minpout) below the 8193/4096 defaults halves large writes",
		Sources: []Source{
			{Doc: Seed002, Section: "AIX disk I/O pacing vs PowerHA",
				Quote: "The default AIX 6.1 and 7.1 systems are coming with maxpout set to 8193 and minpout respecitvletly to 4096."},
			{Doc: Seed002, Section: "AIX disk I/O pacing vs PowerHA",
				Quote: "orion_20110706_0552_summary.txt:Maximum Large MBPS=109.64 @ Small=0 and Large=10"},
			{Doc: Seed002, Section: "AIX disk I/O pacing vs PowerHA",
				Quote: "As you can see there is drastic change when it comes to large sequential writes, but don’t change that parameters yet!"},
			{Doc: Seed002, Section: "AIX disk I/O pacing vs PowerHA",
				Quote: "So perhaps the way forward for 33/20 environments here is to leave them somewhere between 33/20 and 8193/4096 (like the mentioned 513/256 in the IBM manuals)."},
			{Doc: Seed004, Section: "FS mount options advices",
				Quote: "mount –o noatime,cio jfs2 agblksize=512 (to avoid io demotion)"},
			{Doc: Seed004, Section: "FS mount options advices",
				Quote: "Use jfs2 cache, but memory is released after read/write."},
		},
		Scope: Scope{
			Kernels: "AIX 6.1 and later (defaults 8193/4096); AIX 5.3's default 0/0 (no pacing) is not judged",
			Note: "HACMP/PowerHA up to 5.4.1 recommended 33/24 so that its daemons get CPU under heavy writes; 002 measured the cost on AIX 6.1. " +
				"A PowerHA cluster node (lssrc -ls clstrmgrES: a cluster manager state other than NOT_CONFIGURED) passes at 513/256 and above, " +
				"and its fix is 513/256; any other host's is 8193/4096; without lssrc -ls clstrmgrES the fix names both",
		},
		Description: `sys0's maxpout is the number of pages a file may have in flight before the writing thread
is suspended, minpout the level at which it resumes. 002 measured on AIX 6.1 with Oracle's Orion, 100 %
writes: 213.55 MB/s for large sequential writes at the defaults 8193/4096, 109.64 MB/s at the old
HACMP 33/24; small random IOPS barely moved (32323 vs 31203). 002 also warns why the low values
exist: HACMP/PowerHA's heartbeat daemons must get CPU while a process floods the disks, or a busy
node fails over. On a cluster node the middle ground it names is 513/256: the rule reads whether the host
is one from lssrc -ls clstrmgrES (PowerHA's cluster manager) and gives that fix there, the defaults elsewhere.`,
		Check: checkAIXIOPacing,
	})
}

// aixMaxpoutDefault, aixMinpoutDefault are AIX 6.1's and 7.x's defaults
// (002); aixMaxpoutCluster is 002's middle ground for a PowerHA node (513/256).
const aixMaxpoutDefault, aixMinpoutDefault, aixMaxpoutCluster = 8193, 4096, 513

func checkAIXIOPacing(in *Input) Outcome {
	s := in.Snap
	if s.AIX.Sys0 == nil {
		return CannotCheck("%s", aixWhy(s, "aix.sys0", "lsattr -El sys0"))
	}
	maxp, ok1 := aixAttr(s.AIX.Sys0, "maxpout")
	minp, ok2 := aixAttr(s.AIX.Sys0, "minpout")
	if !ok1 || !ok2 {
		return CannotCheck("aix.sys0: lsattr -El sys0 lists no numeric maxpout/minpout")
	}
	cur := fmt.Sprintf("maxpout %d, minpout %d", maxp, minp)
	if maxp == 0 {
		return Passed("%s: I/O pacing off (AIX 5.3's default)", cur).Reading("lsattr -El sys0: " + cur)
	}
	if maxp >= aixMaxpoutDefault {
		return Passed("%s (AIX 6.1 and later default 8193/4096)", cur).Reading("lsattr -El sys0: " + cur)
	}
	// A PowerHA node keeps some pacing (002: 513/256); any other host the
	// defaults. Unknown (no lssrc -ls clstrmgrES): both, said so.
	ha, haWhy := s.AIX.PowerHA, ""
	haEv := ""
	switch {
	case ha == nil:
		haWhy = aixWhy(s, "aix.powerha", "lssrc -ls clstrmgrES")
		haEv = "PowerHA not known (" + haWhy + ")"
	case ha.ClusterNode:
		haEv = "lssrc -ls clstrmgrES: PowerHA cluster node, cluster manager " + ha.State
	case ha.Installed:
		haEv = "lssrc -ls clstrmgrES: PowerHA installed, no cluster defined (" + ha.State + ")"
	default:
		haEv = "lssrc -ls clstrmgrES: no PowerHA (the clstrmgrES subsystem is not on file)"
	}
	node := ha != nil && ha.ClusterNode
	if node && maxp >= aixMaxpoutCluster {
		return Passed("%s on a PowerHA cluster node (%s): at or above 002's cluster middle ground 513/256", cur, haEv).Reading("lsattr -El sys0: "+cur, haEv)
	}
	sev := SevWarning
	note := ""
	if maxp > aixMaxpoutCluster {
		sev = SevInfo
		note = " Its maxpout is above 002's cluster middle ground (513/256): the loss is smaller than at 33/24."
	}
	const (
		toDefault   = "chdev -l sys0 -a maxpout=8193 -a minpout=4096   # at once, and kept in the ODM"
		toCluster   = "chdev -l sys0 -a maxpout=513 -a minpout=256   # at once, and kept in the ODM; then drive the node to full CPU and check that no failover or missed heartbeat follows"
		clusterRisk = "002: \"don't change that parameters yet\" on a cluster — the low values keep a write-heavy process from starving " +
			"HACMP/PowerHA's daemons of CPU, and a node that misses heartbeats fails over."
	)
	f := Finding{
		Severity: sev,
		Setting:  "sys0:maxpout/minpout",
		Current:  cur,
		Evidence: "lsattr -El sys0: " + cur + "; " + haEv,
		Why: "002 (AIX 6.1, Orion, 100 % writes): large sequential writes reached 213.55 MB/s at maxpout/minpout 8193/4096 and " +
			"109.64 MB/s at the old HACMP 33/24 — halved — while small random IOPS barely changed. Pacing counts a file's dirty pages " +
			"written through the file cache: a thread writing a cached file (004 mounts archive logs with rbrw, \"Use jfs2 cache\"; " +
			"RMAN backups, exports, data loads to a cached file system) is suspended each time the file has maxpout pages in flight. " +
			"Redo on a cio mount, as 004 advises (\"mount –o noatime,cio jfs2 agblksize=512\"), and data files on cio bypass the file " +
			"cache and are not paced." + note,
		Fix: Fix{Persistent: []string{"chdev on sys0 is kept in the ODM (lsattr -El sys0 -a maxpout -a minpout)"}},
	}
	perFS := " Per-file-system pacing (mount -o maxpout=,minpout=) overrides sys0 for that file system."
	switch {
	case node:
		f.Recommended = "maxpout 513, minpout 256 on this PowerHA node (002's middle ground), after a test at full CPU"
		f.Fix.Runtime = []string{toCluster}
		f.Risk = clusterRisk + " 513/256 lets a file have a sixteenth of the pages in flight the defaults do: measure the writes and test at full CPU before keeping it." + perFS
	case ha != nil:
		f.Recommended = "maxpout 8193, minpout 4096 (AIX 6.1+ defaults): no PowerHA cluster on this node"
		f.Fix.Runtime = []string{toDefault}
		f.Risk = "The low values exist for HACMP/PowerHA's daemons, and this node runs no cluster (" + haEv + "); should it join one, " +
			"002 advises 513/256 after a test at full CPU." + perFS
	default:
		f.Recommended = "maxpout 8193, minpout 4096 (AIX 6.1+ defaults); on an HACMP/PowerHA node, after a test at full CPU, at least 513/256"
		f.Fix.Runtime = []string{"lssrc -ls clstrmgrES   # a PowerHA cluster node says \"Current state: ST_...\"", toDefault,
			"on an HACMP/PowerHA node instead: " + toCluster}
		f.Risk = clusterRisk + " Outside a cluster the defaults are what AIX 6.1 and later ship." + perFS
	}
	return Found(f)
}
