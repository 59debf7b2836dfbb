package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// aixSummary is collect's text for an AIX host: the aix section, the way an
// AIX administrator reads it (what is absent is listed after it).
func aixSummary(d doc, a *snapshot.AIX) {
	l := "AIX level absent"
	if a.OSLevel != nil {
		l = "AIX level " + *a.OSLevel
	}
	if p := a.Prtconf; p != nil {
		l += fmt.Sprintf("; %s, %s", orDash(p.SystemModel), orDash(p.ProcessorType))
		if p.ImplementationMode != "" {
			l += fmt.Sprintf(" (mode %s)", p.ImplementationMode)
		}
		if p.ClockMHz != nil {
			l += fmt.Sprintf(" at %d MHz", *p.ClockMHz)
		}
	}
	d.section(l)
	if lp := a.LPAR; lp != nil {
		d.line(fmt.Sprintf("LPAR %s: %s, %s, entitled %s, %s online vCPU(s), %s MB online memory", orDash(lp.Name), orDash(lp.Type), orDash(lp.Mode),
			optFloat(lp.EntitledCapacity, "%.2f"), optIntp(lp.OnlineVCPUs), optInt(lp.OnlineMemoryMB)))
	}
	if t := a.SMT; t != nil {
		state := "absent"
		if t.Enabled != nil {
			state = map[bool]string{true: "enabled", false: "disabled"}[*t.Enabled]
		}
		d.line(fmt.Sprintf("SMT: %s, up to %s threads per processor, boot mode %s, %d processor(s)", state, optIntp(t.MaxThreads), orDash(t.BootMode), len(t.Procs)))
	}
	if x := a.DSCR; x != nil {
		state := "depth in force not printed"
		if x.PrefetchOff != nil && *x.PrefetchOff {
			state = "off (default prefetch depth 1, DPFD_NONE)"
		} else if x.PrefetchDepth != nil {
			state = fmt.Sprintf("on, default prefetch depth %d", *x.PrefetchDepth)
		}
		d.line(fmt.Sprintf("Hardware prefetch (dscrctl -q): %s; %s hardware streams", state, optIntp(x.NumberOfStreams)))
	}
	if h := a.PowerHA; h != nil {
		state := "not installed"
		switch {
		case h.ClusterNode:
			state = "cluster node, cluster manager " + h.State
		case h.Installed:
			state = "installed, no cluster defined (" + h.State + ")"
		}
		d.line("PowerHA (lssrc -ls clstrmgrES): " + state)
	}
	if len(a.SRADs) > 0 {
		var parts []string
		for _, r := range a.SRADs {
			parts = append(parts, fmt.Sprintf("%d: %s MB, CPUs %s", r.SRAD, optFloat(r.MemMB, "%.0f"), orDash(cpulist.Format(r.CPUs))))
		}
		d.line("SRADs: " + strings.Join(parts, "; "))
	}
	if m := a.Memory; m != nil {
		d.section(fmt.Sprintf("Memory (svmon -G, 4 KB frames): size %s, inuse %s, free %s, pin %s, virtual %s; paging space %s, inuse %s",
			optInt(m.Size), optInt(m.Inuse), optInt(m.Free), optInt(m.Pin), optInt(m.Virtual), optInt(m.PgspSize), optInt(m.PgspInuse)))
	}
	for _, p := range a.PagePools {
		d.item(fmt.Sprintf("%s pages: pool %s, inuse %s, pin %s", sizeName(p.SizeKB), optInt(p.PoolSize), optInt(p.Inuse), optInt(p.Pin)))
	}
	for _, p := range a.PagingSpaces {
		d.item(fmt.Sprintf("paging space %s on %s: %s MB, %s%% used", p.Name, p.PV, optInt(p.SizeMB), optIntp(p.UsedPct)))
	}
	if len(a.VmstatV) > 0 {
		var parts []string
		for _, l := range []struct{ label, short string }{{"pending disk I/Os blocked with no pbuf", "no pbuf"},
			{"paging space I/Os blocked with no psbuf", "no psbuf"}, {"filesystem I/Os blocked with no fsbuf", "no fsbuf (JFS)"},
			{"client filesystem I/Os blocked with no fsbuf", "no fsbuf (client)"}, {"external pager filesystem I/Os blocked with no fsbuf", "no fsbuf (JFS2)"}} {
			if v, ok := a.VmstatV[l.label]; ok {
				parts = append(parts, fmt.Sprintf("%s %.0f", l.short, v))
			}
		}
		if len(parts) > 0 {
			d.item("vmstat -v blocked I/Os: " + strings.Join(parts, ", "))
		}
	}
	if len(a.Disks) > 0 {
		d.section(fmt.Sprintf("Disks: %d", len(a.Disks)))
		tb := docTable{head: []string{"disk", "status", "queue_depth", "max_transfer", "algorithm", "reserve_policy", "paths", "description"}, pad: 2, indent: "  ", open: true}
		for _, k := range a.Disks {
			tb.rows = append(tb.rows, []string{k.Name, orDash(k.Status), optInt(k.QueueDepth), optHex(k.MaxTransfer), orDash(k.Algorithm), orDash(k.ReservePolicy), strconv.Itoa(len(k.Paths)), orDash(k.Description)})
		}
		d.table(tb)
	}
	if len(a.FCAdapters) > 0 {
		d.section(fmt.Sprintf("Fibre Channel adapters: %d", len(a.FCAdapters)))
		tb := docTable{head: []string{"adapter", "speed", "num_cmd_elems", "max_xfer_size", "no command resource", "no DMA resource", "no adapter elements"}, pad: 2, indent: "  ", open: true}
		for _, f := range a.FCAdapters {
			tb.rows = append(tb.rows, []string{f.Name, orDash(f.PortSpeed), optInt(f.NumCmdElems), optHex(f.MaxXferSize), optInt(f.NoCommandResourceCount), optInt(f.NoDMAResourceCount), optInt(f.NoAdapterElementsCount)})
		}
		d.table(tb)
	}
	t := a.Tunables
	tl := fmt.Sprintf("Tunables: ioo %s, vmo %s, no %s, schedo %s", mapLen(t.IOO), mapLen(t.VMO), mapLen(t.NO), mapLen(t.Schedo))
	if t.VMORestricted != nil {
		tl += fmt.Sprintf(", vmo restricted %s", mapLen(t.VMORestricted))
	}
	if a.Sys0 != nil {
		var kv []string
		for _, k := range []string{"minpout", "maxpout", "maxuproc"} {
			if v, ok := a.Sys0[k]; ok {
				kv = append(kv, k+"="+v.Value)
			}
		}
		tl += "; sys0 " + strings.Join(kv, " ")
	}
	d.section(tl)
	if len(a.Filesystems) > 0 {
		d.section(fmt.Sprintf("File systems: %d", len(a.Filesystems)))
		tb := docTable{head: []string{"mount", "vfs", "agblksize", "options (lsfs)", "mounted with"}, pad: 2, indent: "  ", open: true}
		mounted := map[string][]string{}
		for _, m := range a.Mounts {
			mounted[m.Path] = m.Options
		}
		for _, f := range a.Filesystems {
			opts, ok := mounted[f.Mount]
			with := "not mounted"
			if ok {
				with = orDash(strings.Join(opts, ","))
			}
			tb.rows = append(tb.rows, []string{f.Mount, f.VFS, optInt(f.AGBlkSize), orDash(strings.Join(f.Options, ",")), with})
		}
		d.table(tb)
	}
	if len(a.Processes) > 0 {
		roles := map[string]int{}
		for _, p := range a.Processes {
			roles[p.Engine+" "+p.Role+" "+p.Instance]++
		}
		keys := make([]string, 0, len(roles))
		for k := range roles {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d.section(fmt.Sprintf("Database processes: %d of %s", len(a.Processes), optIntp(a.ProcessCount)))
		for _, k := range keys {
			d.item(fmt.Sprintf("%s ×%d", strings.TrimSpace(k), roles[k]))
		}
	}
	for _, u := range a.Users {
		d.line(fmt.Sprintf("User %s capabilities: %s", u.Name, orDash(strings.Join(u.Capabilities, ","))))
	}
	if a.TZ != nil {
		d.line("TZ (/etc/environment): " + *a.TZ)
	}
}

func optIntp(p *int) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

func optFloat(p *float64, f string) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprintf(f, *p)
}

func optHex(p *int64) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprintf("%#x", *p)
}

func mapLen[T any](m map[string]T) string {
	if m == nil {
		return "absent"
	}
	return fmt.Sprint(len(m))
}

// aixTopology is an AIX host's one-line topology: the LPAR and its SRADs
// (an AIX host has no Linux topology to show).
func aixTopology(a *snapshot.AIX) string {
	var parts []string
	if lp := a.LPAR; lp != nil {
		parts = append(parts, fmt.Sprintf("LPAR %s: %s, %s online vCPU(s), entitled %s", orDash(lp.Name), orDash(lp.Type), optIntp(lp.OnlineVCPUs), optFloat(lp.EntitledCapacity, "%.2f")))
	} else {
		parts = append(parts, "LPAR absent")
	}
	if a.SRADs != nil {
		parts = append(parts, fmt.Sprintf("%d SRAD(s)", len(a.SRADs)))
	}
	return strings.Join(parts, ", ")
}
