package facts

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// CPU1 and CPU3 offline: the columns are CPU0 CPU2 CPU4.
const interruptsGaps = `            CPU0       CPU2       CPU4
   0:         45          0          0   IO-APIC   2-edge      timer
   8:          0          1          0   IO-APIC   8-edge      rtc0
  24:          1          0          0  IR-PCI-MSI 524288-edge      eth0-TxRx-0
  25:          0         10          5  IR-PCI-MSI 524289-edge      eth0-TxRx-1
  26:          0          0          0  PCI-MSI 1572864-edge      aerdrv, PCIe PME
  27:          3          0          0   GICv3  27 Level     arch_timer
  28:          7          0          0   IO-APIC-edge  i8042
  29:          0          0          0  dummy
NMI:          1          2          3   Non-maskable interrupts
LOC:      52811      50709      40000   Local timer interrupts
IPI0:         9          8   Rescheduling interrupts
ERR:          4
MIS:          0
`

func TestParseInterrupts(t *testing.T) {
	cpus, irqs, err := parseInterrupts(interruptsGaps)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cpus, []int{0, 2, 4}) {
		t.Errorf("columns = %v, want [0 2 4] (offline CPUs leave gaps)", cpus)
	}
	want := []snapshot.IRQ{
		{IRQ: "0", Chip: "IO-APIC", Actions: "timer", Counts: []uint64{45, 0, 0}, Total: 45},
		{IRQ: "8", Chip: "IO-APIC", Actions: "rtc0", Counts: []uint64{0, 1, 0}, Total: 1},
		{IRQ: "24", Chip: "IR-PCI-MSI", Actions: "eth0-TxRx-0", Counts: []uint64{1, 0, 0}, Total: 1},
		{IRQ: "25", Chip: "IR-PCI-MSI", Actions: "eth0-TxRx-1", Counts: []uint64{0, 10, 5}, Total: 15},
		{IRQ: "26", Chip: "PCI-MSI", Actions: "aerdrv, PCIe PME", Counts: []uint64{0, 0, 0}, Total: 0},
		{IRQ: "27", Chip: "GICv3", Actions: "arch_timer", Counts: []uint64{3, 0, 0}, Total: 3},
		{IRQ: "28", Chip: "IO-APIC-edge", Actions: "i8042", Counts: []uint64{7, 0, 0}, Total: 7},
		{IRQ: "29", Chip: "dummy", Counts: []uint64{0, 0, 0}, Total: 0},
		{IRQ: "NMI", Desc: "Non-maskable interrupts", Counts: []uint64{1, 2, 3}, Total: 6},
		{IRQ: "LOC", Desc: "Local timer interrupts", Counts: []uint64{52811, 50709, 40000}, Total: 143520},
		{IRQ: "IPI0", Desc: "Rescheduling interrupts", Counts: []uint64{9, 8}, Total: 17},
		{IRQ: "ERR", Counts: []uint64{}, Total: 4},
		{IRQ: "MIS", Counts: []uint64{}, Total: 0},
	}
	if len(irqs) != len(want) {
		t.Fatalf("got %d rows, want %d: %+v", len(irqs), len(want), irqs)
	}
	for i := range want {
		if !reflect.DeepEqual(irqs[i], want[i]) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, irqs[i], want[i])
		}
	}
}

func TestParseInterruptsSingleCPU(t *testing.T) {
	_, irqs, err := parseInterrupts("           CPU0\n  1:  5  XT-PIC  i8042\nERR:  2\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(irqs) != 2 || irqs[0].Total != 5 || irqs[0].Actions != "i8042" || irqs[1].Total != 2 {
		t.Errorf("got %+v", irqs)
	}
}

func TestParseInterruptsMalformed(t *testing.T) {
	for _, in := range []string{
		"",
		"\n\n",
		"  0: 1 2 IO-APIC timer\n",             // no header
		"  CPU0 CPU0\n  0: 1 2 x\n",            // duplicate column
		"  CPU1 CPU0\n",                        // descending columns
		"  CPU0 CPUx\n",                        // bad column
		"  CPU0 CPU1\n  0: 1 IO-APIC timer\n",  // too few counts on a numbered row
		"  CPU0 CPU1\n  0 1 2 IO-APIC timer\n", // no colon
		"  CPU0 CPU1\nNMI: Non-maskable\n",     // named row without counts
		"  CPU0 CPU1\n  0: 99999999999999999999 0\n", // overflow
		"  CPU0 CPU1\n : 1 2\n",                      // empty name
	} {
		if _, _, err := parseInterrupts(in); err == nil {
			t.Errorf("parseInterrupts(%q) succeeded, want an error", in)
		} else if _, ok := err.(*ParseError); !ok {
			t.Errorf("parseInterrupts(%q) error %T, want *ParseError", in, err)
		}
	}
}

func TestReadInterrupts(t *testing.T) {
	b := newBTree(t).file("/proc/interrupts", interruptsGaps).
		file("/proc/irq/default_smp_affinity", "15\n").
		files("/proc/irq/24", map[string]string{"smp_affinity_list": "0,2\n", "effective_affinity_list": "2\n", "node": "1\n"}).
		files("/proc/irq/25", map[string]string{"smp_affinity_list": "4\n", "node": "-1\n"})
	for _, n := range []string{"0", "8", "26", "27", "28", "29"} {
		b.file("/proc/irq/"+n+"/smp_affinity_list", "0-4\n")
	}
	s := b.collect(readInterrupts)
	q := s.IRQs
	if len(q.IRQs) != 13 || !reflect.DeepEqual(q.DefaultAffinity, []int{0, 2, 4}) {
		t.Fatalf("IRQs = %+v", q)
	}
	one := 1
	if i := q.IRQs[2]; i.IRQ != "24" || !reflect.DeepEqual(i.Affinity, []int{0, 2}) || !reflect.DeepEqual(i.EffectiveAffinity, []int{2}) || !reflect.DeepEqual(i.Node, &one) {
		t.Errorf("irq 24 = %+v", i)
	}
	if i := q.IRQs[3]; !reflect.DeepEqual(i.Affinity, []int{4}) || i.EffectiveAffinity != nil || i.Node != nil {
		t.Errorf("irq 25 = %+v (node -1 must be nil)", i)
	}
	if i := q.IRQs[8]; i.IRQ != "NMI" || i.Affinity != nil {
		t.Errorf("named row got affinity: %+v", i)
	}
	if len(s.Absent) != 0 {
		t.Errorf("Absent = %+v", s.Absent)
	}
}

func TestReadInterruptsAbsent(t *testing.T) {
	// Nothing at all.
	s := newBTree(t).collect(readInterrupts)
	if s.IRQs.IRQs == nil || len(s.IRQs.IRQs) != 0 || !hasAbsent(s, "irqs.irqs", "not present") || !hasAbsent(s, "irqs.default_affinity", "not present") {
		t.Errorf("IRQs=%+v Absent=%+v", s.IRQs, s.Absent)
	}
	// /proc/interrupts but no /proc/irq (e.g. a partial capture): one absence, not one per IRQ.
	s = newBTree(t).file("/proc/interrupts", interruptsGaps).collect(readInterrupts)
	if len(s.IRQs.IRQs) != 13 || !hasAbsent(s, "irqs.affinity", "not present") || len(s.Absent) != 2 {
		t.Errorf("Absent=%+v", s.Absent)
	}
	// Some IRQ dirs missing or malformed: one aggregated absence.
	s = newBTree(t).file("/proc/interrupts", interruptsGaps).
		file("/proc/irq/default_smp_affinity", "zz\n").
		file("/proc/irq/0/smp_affinity_list", "0-x\n").
		file("/proc/irq/8/smp_affinity_list", "0\n").collect(readInterrupts)
	if !hasAbsent(s, "irqs.affinity", "7 of 8 IRQs") || !hasAbsent(s, "irqs.default_affinity", "malformed") {
		t.Errorf("Absent=%+v", s.Absent)
	}
	if s.IRQs.IRQs[0].Affinity != nil || !reflect.DeepEqual(s.IRQs.IRQs[1].Affinity, []int{0}) {
		t.Errorf("affinity: %+v %+v", s.IRQs.IRQs[0], s.IRQs.IRQs[1])
	}
	// Malformed /proc/interrupts.
	s = newBTree(t).file("/proc/interrupts", "garbage\n").collect(readInterrupts)
	if len(s.IRQs.IRQs) != 0 || !hasAbsent(s, "irqs.irqs", "malformed: line 1") {
		t.Errorf("Absent=%+v", s.Absent)
	}
}

// bigInterrupts builds a /proc/interrupts of ncpu columns and nirq rows.
func bigInterrupts(ncpu, nirq int) string {
	var b strings.Builder
	b.WriteString("      ")
	for i := 0; i < ncpu; i++ {
		fmt.Fprintf(&b, "CPU%-7d ", i)
	}
	b.WriteByte('\n')
	for n := 0; n < nirq; n++ {
		fmt.Fprintf(&b, "%4d: ", n)
		for i := 0; i < ncpu; i++ {
			fmt.Fprintf(&b, "%10d ", (n*7+i*13)%100000)
		}
		fmt.Fprintf(&b, " IR-PCI-MSI %d-edge      eth%d-TxRx-%d\n", 524288+n, n/64, n%64)
	}
	for _, name := range []string{"NMI", "LOC", "SPU", "PMI", "IWI", "RTR", "RES", "CAL", "TLB"} {
		fmt.Fprintf(&b, "%s: ", name)
		for i := 0; i < ncpu; i++ {
			fmt.Fprintf(&b, "%10d ", i)
		}
		b.WriteString("  Something interrupts\n")
	}
	b.WriteString("ERR:          0\nMIS:          0\n")
	return b.String()
}

func TestParseInterruptsLarge(t *testing.T) {
	in := bigInterrupts(240, 1000)
	_, irqs, err := parseInterrupts(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(irqs) != 1011 || len(irqs[999].Counts) != 240 || irqs[999].Actions != "eth15-TxRx-39" {
		t.Fatalf("rows=%d last=%+v", len(irqs), irqs[999].Actions)
	}
	allocs := testing.AllocsPerRun(3, func() { _, _, _ = parseInterrupts(in) })
	if allocs > 10 {
		t.Errorf("parseInterrupts made %v allocations for 1000×240, want a handful", allocs)
	}
}

func BenchmarkParseInterrupts240x1000(b *testing.B) {
	in := bigInterrupts(240, 1000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := parseInterrupts(in); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzParseInterrupts(f *testing.F) {
	f.Add(interruptsGaps)
	f.Add("           CPU0\n  1:  5  XT-PIC  i8042\nERR:  2\n")
	f.Fuzz(func(t *testing.T, in string) {
		cpus, irqs, err := parseInterrupts(in)
		if err != nil {
			return
		}
		for _, q := range irqs {
			if len(q.Counts) > len(cpus) {
				t.Fatalf("IRQ %s: %d counts for %d CPU columns", q.IRQ, len(q.Counts), len(cpus))
			}
			var sum uint64
			for _, v := range q.Counts {
				sum += v
			}
			if len(q.Counts) > 0 && sum != q.Total {
				t.Fatalf("IRQ %s: total %d, sum %d", q.IRQ, q.Total, sum)
			}
			if q.IRQ == "" || strings.ContainsAny(q.IRQ, " \t\n") {
				t.Fatalf("bad IRQ name %q", q.IRQ)
			}
		}
	})
}
