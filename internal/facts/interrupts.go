package facts

import (
	"strconv"
	"strings"
	"sync"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() { register("interrupts", StageSources, readInterrupts, "irqs") }

// maxIRQCPUs bounds the CPU ids accepted in the header (NR_CPUS tops out at 8192).
const maxIRQCPUs = 1 << 16

// parseInterrupts parses /proc/interrupts.
//
// The header names one column per online CPU ("CPU0 CPU1 CPU4": offline CPUs
// leave gaps). Numbered rows carry exactly one count per column, then the irq
// chip, the hardware irq and trigger ("5-edge"; "27 Level" with
// GENERIC_IRQ_SHOW_LEVEL; nothing on old kernels whose chip reads
// "IO-APIC-edge") and the actions, kept as printed ("eth0-TxRx-0",
// "aerdrv, PCIe PME"). Named rows (NMI, LOC, IPI0, ...) may carry fewer counts
// than there are columns, then a description; their counts are attributed to
// the first columns. A named row with one count and no description (ERR, MIS)
// is a system-wide total: it has no per-CPU counts.
//
// The whole input is converted to a string once and every name is a
// substring of it; counts of all rows share one backing array, and rows with
// counts[k] of every row was served by cpus[k] (the header's columns).
func parseInterrupts(s string) (cpus []int, irqs []snapshot.IRQ, err error) {
	lineNo := 0
	next := func() (string, bool) {
		for len(s) > 0 {
			lineNo++
			var line string
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				line, s = s[:i], s[i+1:]
			} else {
				line, s = s, ""
			}
			if strings.TrimSpace(line) != "" {
				return line, true
			}
		}
		return "", false
	}
	header, ok := next()
	if !ok {
		return nil, nil, parseErr(0, "empty: expected a header of CPU columns")
	}
	cpus, err = parseIRQHeader(header, lineNo)
	if err != nil {
		return nil, nil, err
	}
	ncols := len(cpus)
	nlines := strings.Count(s, "\n") + 1
	irqs = make([]snapshot.IRQ, 0, nlines)
	// Every count takes at least two bytes of input, which bounds the slab
	// whatever the header claims.
	slabCap := nlines * ncols
	if limit := len(s)/2 + 1; slabCap > limit {
		slabCap = limit
	}
	slab := make([]uint64, 0, slabCap)
	for {
		line, ok := next()
		if !ok {
			break
		}
		colon := strings.IndexByte(line, ':')
		if colon < 0 {
			return nil, nil, parseErr(lineNo, "expected \"IRQ: counts...\", got %q", trunc(strings.TrimSpace(line), 60))
		}
		name := strings.TrimSpace(line[:colon])
		if name == "" || strings.ContainsAny(name, " \t") {
			return nil, nil, parseErr(lineNo, "expected an IRQ number or name before ':', got %q", trunc(name, 30))
		}
		numbered := isDigits(name)
		rest := line[colon+1:]
		start := len(slab)
		var total uint64
		pos := 0
		for len(slab)-start < ncols {
			tokStart, tokEnd := nextToken(rest, pos)
			if tokStart == tokEnd {
				break
			}
			v, isNum, overflow := parseCount(rest[tokStart:tokEnd])
			if overflow {
				return nil, nil, parseErr(lineNo, "count %q of IRQ %s does not fit in 64 bits", trunc(rest[tokStart:tokEnd], 30), name)
			}
			if !isNum {
				break
			}
			slab = append(slab, v)
			total += v
			pos = tokEnd
		}
		k := len(slab) - start
		irq := snapshot.IRQ{IRQ: name, Total: total}
		tail := strings.TrimSpace(rest[pos:])
		switch {
		case numbered:
			if k != ncols {
				return nil, nil, parseErr(lineNo, "IRQ %s has %d counts for %d CPU columns", name, k, ncols)
			}
			irq.Chip, irq.Actions = splitIRQTail(tail)
		case k == 0:
			return nil, nil, parseErr(lineNo, "row %s has no counts", trunc(name, 30))
		case k == 1 && ncols > 1 && tail == "":
			// ERR, MIS: one system-wide count.
			slab = slab[:start]
		default:
			irq.Desc = tail
		}
		k = len(slab) - start
		irq.Counts = slab[start : start+k : start+k]
		irqs = append(irqs, irq)
	}
	return cpus, irqs, nil
}

// parseIRQHeader parses "   CPU0  CPU1  CPU4" into CPU ids (strictly ascending).
func parseIRQHeader(line string, lineNo int) ([]int, error) {
	cpus := make([]int, 0, len(line)/8+1)
	pos := 0
	for {
		a, b := nextToken(line, pos)
		if a == b {
			break
		}
		tok := line[a:b]
		id, ok := strings.CutPrefix(tok, "CPU")
		if !ok || !isDigits(id) || len(id) > 6 {
			return nil, parseErr(lineNo, "expected a header of CPUn columns, got %q", trunc(tok, 20))
		}
		n, _ := strconv.Atoi(id)
		if n > maxIRQCPUs {
			return nil, parseErr(lineNo, "CPU id %d out of range", n)
		}
		if len(cpus) > 0 && n <= cpus[len(cpus)-1] {
			return nil, parseErr(lineNo, "CPU columns not in ascending order at %s", tok)
		}
		cpus = append(cpus, n)
		pos = b
	}
	if len(cpus) == 0 {
		return nil, parseErr(lineNo, "expected a header of CPUn columns, got %q", trunc(strings.TrimSpace(line), 40))
	}
	return cpus, nil
}

// nextToken returns the bounds of the next whitespace-separated token at or
// after pos (a == b when there is none).
func nextToken(s string, pos int) (a, b int) {
	for pos < len(s) && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r') {
		pos++
	}
	a = pos
	for pos < len(s) && s[pos] != ' ' && s[pos] != '\t' && s[pos] != '\r' {
		pos++
	}
	return a, pos
}

// parseCount parses a decimal count without allocating.
func parseCount(tok string) (v uint64, isNum, overflow bool) {
	if tok == "" {
		return 0, false, false
	}
	for i := 0; i < len(tok); i++ {
		d := tok[i]
		if d < '0' || d > '9' {
			return 0, false, false
		}
		if v > (1<<64-1)/10 || v*10 > 1<<64-1-uint64(d-'0') {
			return 0, true, true
		}
		v = v*10 + uint64(d-'0')
	}
	return v, true, false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// splitIRQTail splits "IO-APIC   5-edge      ACPI:Ged" into the chip and the
// actions, skipping the hardware irq / trigger tokens between them.
func splitIRQTail(tail string) (chip, actions string) {
	a, b := nextToken(tail, 0)
	if a == b {
		return "", ""
	}
	chip = tail[a:b]
	pos := b
	for skipped := 0; skipped < 2; skipped++ {
		ta, tb := nextToken(tail, pos)
		if ta == tb || !isHWIRQToken(tail[ta:tb]) {
			break
		}
		pos = tb
	}
	return chip, strings.TrimSpace(tail[pos:])
}

// isHWIRQToken recognises "5-edge", "524288-edge", "27", "Level", "Edge" and
// "-edge" (no irq domain).
func isHWIRQToken(t string) bool {
	switch t {
	case "Level", "Edge", "level", "edge":
		return true
	}
	if t[0] == '-' {
		return len(t) > 1
	}
	num, _, _ := strings.Cut(t, "-")
	return isDigits(num)
}

const procIRQ = "/proc/irq"

func readInterrupts(c *Collector) {
	q := &c.Snap.IRQs
	q.IRQs = []snapshot.IRQ{}
	const p = "/proc/interrupts"
	b, err := c.Root.ReadFile(p)
	if err != nil {
		c.Absent("irqs.irqs", p, err)
	} else if cpus, irqs, err := parseInterrupts(string(b)); err != nil {
		c.Absent("irqs.irqs", p, err)
	} else {
		q.CPUs, q.IRQs = cpus, irqs
	}
	if s, err := c.Root.ReadString(procIRQ + "/default_smp_affinity"); err != nil {
		c.Absent("irqs.default_affinity", procIRQ+"/default_smp_affinity", err)
	} else if ids, err := cpulist.ParseMask(s); err != nil {
		c.Absent("irqs.default_affinity", procIRQ+"/default_smp_affinity", parseErr(1, "%v", err))
	} else {
		q.DefaultAffinity = ids
	}
	readIRQAffinity(c, q.IRQs)
}

// readIRQAffinity fills each numbered IRQ's affinity from /proc/irq/N. The
// files are small and many (a 240-CPU host has ~1000 IRQs), so they are read
// by a few goroutines; each writes only its own IRQs.
func readIRQAffinity(c *Collector, irqs []snapshot.IRQ) {
	numbered := 0
	for i := range irqs {
		if isDigits(irqs[i].IRQ) {
			numbered++
		}
	}
	if numbered == 0 {
		return
	}
	if !c.Root.Exists(procIRQ) {
		c.AbsentReason("irqs.affinity", procIRQ, "not present on this host")
		return
	}
	const workers = 4
	var wg sync.WaitGroup
	missing := make([]int, workers)
	var firstErr [workers]error
	panicked := false
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer c.recoverWorker("interrupts", &panicked, "irqs.affinity")
			testPanic("worker:interrupts")
			for i := w; i < len(irqs); i += workers {
				irq := &irqs[i]
				if !isDigits(irq.IRQ) {
					continue
				}
				dir := procIRQ + "/" + irq.IRQ
				s, err := c.Root.ReadAttr(dir + "/smp_affinity_list")
				if err == nil {
					irq.Affinity, err = cpulist.Parse(s)
				}
				if err != nil {
					irq.Affinity = nil
					missing[w]++
					if firstErr[w] == nil {
						firstErr[w] = err
					}
				}
				if s, err := c.Root.ReadAttr(dir + "/effective_affinity_list"); err == nil {
					if ids, err := cpulist.Parse(s); err == nil {
						irq.EffectiveAffinity = ids
					}
				}
				if s, err := c.Root.ReadAttr(dir + "/node"); err == nil {
					if n, err := strconv.Atoi(s); err == nil && n >= 0 {
						irq.Node = &n
					}
				}
			}
		}(w)
	}
	wg.Wait()
	if panicked {
		for i := range irqs { // irqs.affinity absent (recoverWorker), not half-read
			irqs[i].Affinity, irqs[i].EffectiveAffinity, irqs[i].Node = nil, nil, nil
		}
		return
	}
	total := 0
	var err error
	for w := range missing {
		total += missing[w]
		if err == nil {
			err = firstErr[w]
		}
	}
	if total > 0 {
		c.AbsentReason("irqs.affinity", procIRQ+"/N/smp_affinity_list",
			strconv.Itoa(total)+" of "+strconv.Itoa(numbered)+" IRQs have no readable smp_affinity_list (first: "+Reason(err)+")")
	}
}
