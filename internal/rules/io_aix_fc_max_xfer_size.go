package rules

import (
	"fmt"
	"strings"
)

// io.aix-fc-max-xfer-size: fcstat -e's "No DMA Resource Count" above 0 says
// the adapter's DMA area (max_xfer_size) was too small for the I/Os sent
// to it; 004 gives 0x200000 as the value to raise it to.
func init() {
	Register(Rule{
		ID:       "io.aix-fc-max-xfer-size",
		Area:     AreaIO,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX FC adapter ran out of DMA resources (fcstat No DMA Resource Count): max_xfer_size",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "You can also change the max_xfer_size=0x200000 and lg_term_dma=0x800000 with the same command"},
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "No DMA Resource Count: 0"},
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "These changes use more memory and must be made with caution, check first with : # fcstat fcsX"},
		},
		Scope: Scope{
			Kernels: "AIX (lsattr -El fcsN, fcstat -e fcsN)",
			Note:    "a counter above 0 since the adapter was configured; at 0 the rule is quiet whatever max_xfer_size is",
		},
		Description: `fcstat -e's "No DMA Resource Count" counts the I/Os the adapter could not map for DMA
because its DMA area — sized by max_xfer_size (and lg_term_dma) — was exhausted. 004 raises
max_xfer_size to 0x200000 and lg_term_dma to 0x800000 with the same chdev as num_cmd_elems, after
checking fcstat. A larger max_xfer_size also lets the disks' max_transfer grow (larger I/Os for
scans and RMAN).`,
		Check: checkAIXFCMaxXferSize,
	})
}

// aixMaxXfer is 004's max_xfer_size, 0x200000 (2 MiB).
const aixMaxXfer = 0x200000

func checkAIXFCMaxXferSize(in *Input) Outcome {
	s := in.Snap
	a := s.AIX
	if out, none := aixNoFC(s); none {
		return out
	}
	var fs []Finding
	var cannot, ok []string
	for _, f := range a.FCAdapters {
		if f.NoDMAResourceCount == nil {
			cannot = append(cannot, f.Name+": "+aixWhy(s, "aix.fc_adapters.no_dma_resource_count", "fcstat -e "+f.Name))
			continue
		}
		if *f.NoDMAResourceCount == 0 {
			ok = append(ok, f.Name)
			continue
		}
		cur, want := "max_xfer_size unknown", int64(aixMaxXfer)
		if f.MaxXferSize != nil {
			cur = fmt.Sprintf("max_xfer_size 0x%X", *f.MaxXferSize)
			if *f.MaxXferSize >= aixMaxXfer {
				want = 2 * *f.MaxXferSize
			}
		}
		ev := fmt.Sprintf("fcstat -e %s: No DMA Resource Count %d; lsattr -El %s: %s", f.Name, *f.NoDMAResourceCount, f.Name, cur)
		if f.EffectiveMaxTransfer != nil {
			ev += fmt.Sprintf("; effective max transfer 0x%X", *f.EffectiveMaxTransfer)
		}
		fs = append(fs, Finding{
			Setting:     f.Name + ":max_xfer_size",
			Current:     fmt.Sprintf("%s, %d I/Os without a DMA resource", cur, *f.NoDMAResourceCount),
			Recommended: fmt.Sprintf("max_xfer_size 0x%X (within the adapter's range: lsattr -Rl %s -a max_xfer_size)", want, f.Name),
			Evidence:    ev,
			Why: "004: raise max_xfer_size to 0x200000 (and lg_term_dma to 0x800000) with the same chdev as num_cmd_elems; fcstat " +
				"counted I/Os that found the adapter's DMA area exhausted, and those waited.",
			Fix: Fix{
				Runtime: []string{
					"fcstat -e " + sh(f.Name) + "   # 004: check first",
					fmt.Sprintf("chdev -l %s -a max_xfer_size=0x%X -P   # in effect at the next reboot", sh(f.Name), want),
				},
				Persistent: []string{fmt.Sprintf("the ODM keeps max_xfer_size=0x%X (lsattr -El %s -a max_xfer_size)", want, f.Name)},
			},
			RebootRequired: true,
			Risk: "004: \"These changes use more memory and must be made with caution\". A max_xfer_size the adapter or its slot " +
				"does not support can leave the adapter (and the disks behind it, rootvg included) unconfigured at boot: " +
				"take the value from lsattr -Rl and keep a path to rootvg through another adapter. On a virtual FC client the " +
				"VIOS's adapter must be at least as large.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(cannot) > 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	return Passed("No DMA Resource Count 0 on %s (fcstat -e)", strings.Join(ok, ", ")).Reading("fcstat -e: No DMA Resource Count 0 on " + strings.Join(ok, ", "))
}
