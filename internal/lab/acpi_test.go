package lab

import (
	"encoding/binary"
	"testing"
)

func sum8(b []byte) byte {
	var s byte
	for _, v := range b {
		s += v
	}
	return s
}

type sratCPU struct{ pxm, apic int }
type sratMem struct {
	pxm        int
	base, size uint64
}

// decodeSRAT is an independent reader of the table, as Linux walks it.
func decodeSRAT(t *testing.T, b []byte) ([]sratCPU, []sratMem) {
	t.Helper()
	if string(b[0:4]) != "SRAT" || b[8] != 3 {
		t.Fatalf("signature %q revision %d, want SRAT rev 3", b[0:4], b[8])
	}
	if got := binary.LittleEndian.Uint32(b[4:8]); int(got) != len(b) {
		t.Fatalf("header length %d, table is %d bytes", got, len(b))
	}
	if binary.LittleEndian.Uint32(b[36:40]) != 1 {
		t.Fatalf("SRAT reserved field must be 1")
	}
	var cpus []sratCPU
	var mems []sratMem
	for off := 48; off < len(b); {
		typ, l := b[off], int(b[off+1])
		switch typ {
		case 0:
			if l != 16 {
				t.Fatalf("type 0 entry length %d, want 16", l)
			}
			e := b[off : off+l]
			if binary.LittleEndian.Uint32(e[4:8])&1 != 1 {
				t.Fatalf("CPU entry not enabled")
			}
			pxm := int(e[2]) | int(e[9])<<8 | int(e[10])<<16 | int(e[11])<<24
			cpus = append(cpus, sratCPU{pxm, int(e[3])})
		case 1:
			if l != 40 {
				t.Fatalf("type 1 entry length %d, want 40", l)
			}
			e := b[off : off+l]
			if binary.LittleEndian.Uint32(e[28:32])&1 != 1 {
				t.Fatalf("memory entry not enabled")
			}
			mems = append(mems, sratMem{int(binary.LittleEndian.Uint32(e[2:6])),
				binary.LittleEndian.Uint64(e[8:16]), binary.LittleEndian.Uint64(e[16:24])})
		default:
			t.Fatalf("unexpected entry type %d at %d", typ, off)
		}
		off += l
	}
	return cpus, mems
}

func TestSRATEightNodeOdd(t *testing.T) {
	s := eightNodeOdd()
	b, err := SRAT(s)
	if err != nil {
		t.Fatal(err)
	}
	if sum8(b) != 0 {
		t.Fatalf("checksum: bytes sum to %d, want 0", sum8(b))
	}
	if want := 48 + 16*16 + 8*40; len(b) != want {
		t.Fatalf("length %d, want %d", len(b), want)
	}
	cpus, mems := decodeSRAT(t, b)
	// Sorted by domain, so Linux numbers the nodes 0..7 as asked; node 4
	// holds APIC 0 and APIC 15 (= CPUs 0 and 15 with one thread per core).
	want := []sratCPU{{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 5}, {2, 6}, {3, 7}, {3, 8},
		{4, 0}, {4, 15}, {5, 9}, {5, 10}, {6, 11}, {6, 12}, {7, 13}, {7, 14}}
	if len(cpus) != len(want) {
		t.Fatalf("%d CPU entries, want %d", len(cpus), len(want))
	}
	for i := range want {
		if cpus[i] != want[i] {
			t.Errorf("CPU entry %d: got pxm %d apic %d, want pxm %d apic %d", i, cpus[i].pxm, cpus[i].apic, want[i].pxm, want[i].apic)
		}
	}
	var base uint64
	for i, m := range mems {
		if m.pxm != i || m.base != base || m.size != uint64(s.Nodes[i].MemMB)<<20 {
			t.Errorf("memory entry %d: got %+v, want pxm %d base %#x size %d MB", i, m, i, base, s.Nodes[i].MemMB)
		}
		base += m.size
	}
}

func TestSRATSkipsMemorylessAndUsesAPICIDs(t *testing.T) {
	// 3 cores per socket: QEMU's APIC ids leave a gap (core field is 2 bits).
	s := &Scenario{Name: "x", Sockets: 2, Cores: 3, Threads: 1, OwnACPI: true,
		Nodes: []Node{{ID: 0, CPUs: []int{3, 4, 5}, MemMB: 256}, {ID: 1, CPUs: []int{0, 1, 2}}}}
	b, err := SRAT(s)
	if err != nil {
		t.Fatal(err)
	}
	if sum8(b) != 0 {
		t.Fatal("checksum")
	}
	cpus, mems := decodeSRAT(t, b)
	want := []sratCPU{{0, 4}, {0, 5}, {0, 6}, {1, 0}, {1, 1}, {1, 2}}
	for i := range want {
		if cpus[i] != want[i] {
			t.Errorf("entry %d: got %+v want %+v", i, cpus[i], want[i])
		}
	}
	if len(mems) != 1 || mems[0].pxm != 0 {
		t.Errorf("memory entries %+v, want one for node 0 only", mems)
	}
}

func TestSLIT(t *testing.T) {
	s := eightNodeOdd()
	b, err := SLIT(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[0:4]) != "SLIT" || sum8(b) != 0 {
		t.Fatalf("signature %q / checksum sum %d", b[0:4], sum8(b))
	}
	if len(b) != 36+8+64 || binary.LittleEndian.Uint32(b[4:8]) != uint32(len(b)) {
		t.Fatalf("length %d", len(b))
	}
	if n := binary.LittleEndian.Uint64(b[36:44]); n != 8 {
		t.Fatalf("locality count %d", n)
	}
	m := b[44:]
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			if int(m[i*8+j]) != s.Distances[i][j] {
				t.Errorf("[%d][%d] = %d, want %d", i, j, m[i*8+j], s.Distances[i][j])
			}
		}
	}
	if m[4*8+0] != 32 || m[4*8+5] != 16 || m[0] != 10 {
		t.Errorf("spot check of row 4 / diagonal failed: %v", m[32:40])
	}
	// Default distances when the scenario gives none.
	d, err := SLIT(&Scenario{Name: "d", Sockets: 2, Cores: 1, Threads: 1,
		Nodes: []Node{{ID: 0, CPUs: []int{0}, MemMB: 128}, {ID: 1, CPUs: []int{1}, MemMB: 128}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := d[44:]; got[0] != 10 || got[1] != 20 || got[2] != 20 || got[3] != 10 {
		t.Errorf("default SLIT %v, want 10 20 20 10", got)
	}
}

func TestValidateRejects(t *testing.T) {
	base := func() *Scenario {
		return &Scenario{Name: "v", Sockets: 2, Cores: 1, Threads: 1,
			Nodes: []Node{{ID: 0, CPUs: []int{0}, MemMB: 128}, {ID: 1, CPUs: []int{1}, MemMB: 128}}}
	}
	cases := map[string]func(s *Scenario){
		"unassigned cpu":     func(s *Scenario) { s.Nodes[1].CPUs = nil },
		"path in name":       func(s *Scenario) { s.Name = "../x" },
		"cpu twice":          func(s *Scenario) { s.Nodes[1].CPUs = []int{0, 1} },
		"cpu out of range":   func(s *Scenario) { s.Nodes[1].CPUs = []int{2} },
		"sparse ids":         func(s *Scenario) { s.Nodes[1].ID = 3 },
		"bad local distance": func(s *Scenario) { s.Distances = [][]int{{11, 20}, {20, 10}} },
		"remote ≤ 10":        func(s *Scenario) { s.Distances = [][]int{{10, 10}, {10, 10}} },
		"short matrix":       func(s *Scenario) { s.Distances = [][]int{{10, 20}} },
		"smt without model":  func(s *Scenario) { s.Threads = 2; s.Nodes[0].CPUs = []int{0, 1}; s.Nodes[1].CPUs = []int{2, 3} },
		"cpuless first own": func(s *Scenario) {
			s.OwnACPI = true
			s.Nodes[0].CPUs = nil
			s.Nodes[1].CPUs = []int{0, 1}
		},
		"too much RAM for own tables": func(s *Scenario) { s.OwnACPI = true; s.Nodes[0].MemMB = 4096 },
	}
	if err := base().Validate(); err != nil {
		t.Fatalf("base scenario: %v", err)
	}
	for name, mod := range cases {
		s := base()
		mod(s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, s := range Scenarios() {
		if err := s.Validate(); err != nil {
			t.Errorf("suite scenario: %v", err)
		}
	}
}
