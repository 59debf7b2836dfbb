package report

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// aixSummary is collect's text for an AIX host: the aix section, the way an
// AIX administrator reads it (what is absent is listed after it).
func aixSummary(b *bytes.Buffer, a *snapshot.AIX) {
	b.WriteString("\n")
	if a.OSLevel != nil {
		fmt.Fprintf(b, "AIX level %s", *a.OSLevel)
	} else {
		b.WriteString("AIX level absent")
	}
	if p := a.Prtconf; p != nil {
		fmt.Fprintf(b, "; %s, %s", orDash(p.SystemModel), orDash(p.ProcessorType))
		if p.ImplementationMode != "" {
			fmt.Fprintf(b, " (mode %s)", p.ImplementationMode)
		}
		if p.ClockMHz != nil {
			fmt.Fprintf(b, " at %d MHz", *p.ClockMHz)
		}
	}
	b.WriteString("\n")
	if lp := a.LPAR; lp != nil {
		fmt.Fprintf(b, "LPAR %s: %s, %s, entitled %s, %s online vCPU(s), %s MB online memory\n", orDash(lp.Name), orDash(lp.Type), orDash(lp.Mode),
			optFloat(lp.EntitledCapacity, "%.2f"), optIntp(lp.OnlineVCPUs), optInt(lp.OnlineMemoryMB))
	}
	if t := a.SMT; t != nil {
		state := "absent"
		if t.Enabled != nil {
			state = map[bool]string{true: "enabled", false: "disabled"}[*t.Enabled]
		}
		fmt.Fprintf(b, "SMT: %s, up to %s threads per processor, boot mode %s, %d processor(s)\n", state, optIntp(t.MaxThreads), orDash(t.BootMode), len(t.Procs))
	}
	if len(a.SRADs) > 0 {
		var parts []string
		for _, r := range a.SRADs {
			parts = append(parts, fmt.Sprintf("%d: %s MB, CPUs %s", r.SRAD, optFloat(r.MemMB, "%.0f"), orDash(cpulist.Format(r.CPUs))))
		}
		fmt.Fprintf(b, "SRADs: %s\n", strings.Join(parts, "; "))
	}
	if m := a.Memory; m != nil {
		fmt.Fprintf(b, "\nMemory (svmon -G, 4 KB frames): size %s, inuse %s, free %s, pin %s, virtual %s; paging space %s, inuse %s\n",
			optInt(m.Size), optInt(m.Inuse), optInt(m.Free), optInt(m.Pin), optInt(m.Virtual), optInt(m.PgspSize), optInt(m.PgspInuse))
	}
	for _, p := range a.PagePools {
		fmt.Fprintf(b, "  %s pages: pool %s, inuse %s, pin %s\n", sizeName(p.SizeKB), optInt(p.PoolSize), optInt(p.Inuse), optInt(p.Pin))
	}
	for _, p := range a.PagingSpaces {
		fmt.Fprintf(b, "  paging space %s on %s: %s MB, %s%% used\n", p.Name, p.PV, optInt(p.SizeMB), optIntp(p.UsedPct))
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
			fmt.Fprintf(b, "  vmstat -v blocked I/Os: %s\n", strings.Join(parts, ", "))
		}
	}
	if len(a.Disks) > 0 {
		fmt.Fprintf(b, "\nDisks: %d\n", len(a.Disks))
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  disk\tstatus\tqueue_depth\tmax_transfer\talgorithm\treserve_policy\tpaths\tdescription")
		for _, d := range a.Disks {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", d.Name, orDash(d.Status), optInt(d.QueueDepth), optHex(d.MaxTransfer), orDash(d.Algorithm), orDash(d.ReservePolicy), len(d.Paths), orDash(d.Description))
		}
		tw.Flush()
	}
	if len(a.FCAdapters) > 0 {
		fmt.Fprintf(b, "\nFibre Channel adapters: %d\n", len(a.FCAdapters))
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  adapter\tspeed\tnum_cmd_elems\tmax_xfer_size\tno command resource\tno DMA resource\tno adapter elements")
		for _, f := range a.FCAdapters {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, orDash(f.PortSpeed), optInt(f.NumCmdElems), optHex(f.MaxXferSize), optInt(f.NoCommandResourceCount), optInt(f.NoDMAResourceCount), optInt(f.NoAdapterElementsCount))
		}
		tw.Flush()
	}
	t := a.Tunables
	fmt.Fprintf(b, "\nTunables: ioo %s, vmo %s, no %s, schedo %s", mapLen(t.IOO), mapLen(t.VMO), mapLen(t.NO), mapLen(t.Schedo))
	if a.Sys0 != nil {
		var kv []string
		for _, k := range []string{"minpout", "maxpout", "maxuproc"} {
			if v, ok := a.Sys0[k]; ok {
				kv = append(kv, k+"="+v.Value)
			}
		}
		fmt.Fprintf(b, "; sys0 %s", strings.Join(kv, " "))
	}
	b.WriteString("\n")
	if len(a.Filesystems) > 0 {
		fmt.Fprintf(b, "\nFile systems: %d\n", len(a.Filesystems))
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  mount\tvfs\tagblksize\toptions (lsfs)\tmounted with")
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
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", f.Mount, f.VFS, optInt(f.AGBlkSize), orDash(strings.Join(f.Options, ",")), with)
		}
		tw.Flush()
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
		fmt.Fprintf(b, "\nDatabase processes: %d of %s\n", len(a.Processes), optIntp(a.ProcessCount))
		for _, k := range keys {
			fmt.Fprintf(b, "  %s ×%d\n", strings.TrimSpace(k), roles[k])
		}
	}
	for _, u := range a.Users {
		fmt.Fprintf(b, "User %s capabilities: %s\n", u.Name, orDash(strings.Join(u.Capabilities, ",")))
	}
	if a.TZ != nil {
		fmt.Fprintf(b, "TZ (/etc/environment): %s\n", *a.TZ)
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
