package lab

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// ACPI table layouts (ACPI 6.x, §5.2.6 header, §5.2.16 SRAT, §5.2.17 SLIT).
const (
	acpiHeaderLen = 36
	sratRevision  = 3
	slitRevision  = 1
	sratCPUType   = 0  // Processor Local APIC/SAPIC Affinity
	sratCPULen    = 16 //
	sratMemType   = 1  // Memory Affinity
	sratMemLen    = 40 //
	sratFixedLen  = acpiHeaderLen + 12
	sratEnabled   = 1 // flags bit 0
)

// acpiHeader writes the standard 36-byte header; the checksum is filled by finish.
func acpiHeader(sig string, length int, rev byte) []byte {
	b := make([]byte, acpiHeaderLen, length)
	copy(b[0:4], sig)
	binary.LittleEndian.PutUint32(b[4:8], uint32(length))
	b[8] = rev
	copy(b[10:16], "DBHOST")   // OEM ID
	copy(b[16:24], "DBHLAB  ") // OEM table ID
	binary.LittleEndian.PutUint32(b[24:28], 1)
	copy(b[28:32], "DBHL") // creator ID
	binary.LittleEndian.PutUint32(b[32:36], 1)
	return b
}

// finishTable sets the checksum byte (offset 9) so that all bytes sum to 0 mod 256.
func finishTable(b []byte) []byte {
	b[9] = 0
	var sum byte
	for _, v := range b {
		sum += v
	}
	b[9] = -sum
	return b
}

// apicID is the x86 APIC id QEMU gives CPU index i: socket, core and thread
// fields each rounded up to a power of two.
func apicID(s *Scenario, i int) int {
	threadBits := bitsFor(s.Threads)
	coreBits := bitsFor(s.Cores)
	thread := i % s.Threads
	core := (i / s.Threads) % s.Cores
	socket := i / (s.Threads * s.Cores)
	return socket<<(coreBits+threadBits) | core<<threadBits | thread
}

// bitsFor is the number of bits needed for values 0..n-1.
func bitsFor(n int) int {
	b := 0
	for 1<<b < n {
		b++
	}
	return b
}

// memRange is one node's RAM in guest physical address space.
type memRange struct {
	Node       int
	Base, Size uint64
}

// memRanges lays the nodes' RAM out in node order from address 0, as QEMU's
// pc machine puts RAM below 4 GB in one block (Validate caps it at 2 GB).
func memRanges(s *Scenario) []memRange {
	var out []memRange
	var base uint64
	for _, n := range s.Nodes {
		if n.MemMB == 0 {
			continue
		}
		size := uint64(n.MemMB) << 20
		out = append(out, memRange{Node: n.ID, Base: base, Size: size})
		base += size
	}
	return out
}

// SRAT builds a System Resource Affinity Table (revision 3) for the scenario:
// one enabled Processor Local APIC Affinity entry per CPU, sorted by proximity
// domain (then CPU), then one enabled Memory Affinity entry per node with
// memory, sorted by domain. Linux numbers nodes in the order domains first
// appear among the CPU entries, so this order reproduces the node ids.
func SRAT(s *Scenario) ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	type cpu struct{ pxm, idx int }
	var cpus []cpu
	for _, n := range s.Nodes {
		for _, c := range n.CPUs {
			cpus = append(cpus, cpu{n.ID, c})
		}
	}
	sort.Slice(cpus, func(i, j int) bool {
		if cpus[i].pxm != cpus[j].pxm {
			return cpus[i].pxm < cpus[j].pxm
		}
		return cpus[i].idx < cpus[j].idx
	})
	mems := memRanges(s)
	length := sratFixedLen + len(cpus)*sratCPULen + len(mems)*sratMemLen
	b := acpiHeader("SRAT", length, sratRevision)
	b = binary.LittleEndian.AppendUint32(b, 1) // reserved, 1 for backward compatibility
	b = binary.LittleEndian.AppendUint64(b, 0) // reserved
	for _, c := range cpus {
		id := apicID(s, c.idx)
		if id > 255 {
			return nil, fmt.Errorf("%s: APIC id %d does not fit a type 0 entry", s.Name, id)
		}
		e := make([]byte, sratCPULen)
		e[0], e[1] = sratCPUType, sratCPULen
		e[2] = byte(c.pxm)                                                    // proximity domain [7:0]
		e[3] = byte(id)                                                       // APIC id
		binary.LittleEndian.PutUint32(e[4:8], sratEnabled)                    // flags
		e[8] = 0                                                              // local SAPIC EID
		e[9], e[10], e[11] = byte(c.pxm>>8), byte(c.pxm>>16), byte(c.pxm>>24) // domain [31:8]
		binary.LittleEndian.PutUint32(e[12:16], 0)                            // clock domain
		b = append(b, e...)
	}
	for _, m := range mems {
		e := make([]byte, sratMemLen)
		e[0], e[1] = sratMemType, sratMemLen
		binary.LittleEndian.PutUint32(e[2:6], uint32(m.Node))
		binary.LittleEndian.PutUint64(e[8:16], m.Base)  // base low, high
		binary.LittleEndian.PutUint64(e[16:24], m.Size) // length low, high
		binary.LittleEndian.PutUint32(e[28:32], sratEnabled)
		b = append(b, e...)
	}
	return finishTable(b), nil
}

// SLIT builds a System Locality Information Table from the scenario's
// distances (10/20 when it gives none): locality count, then N×N bytes.
func SLIT(s *Scenario) ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n := len(s.Nodes)
	b := acpiHeader("SLIT", acpiHeaderLen+8+n*n, slitRevision)
	b = binary.LittleEndian.AppendUint64(b, uint64(n))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			b = append(b, byte(s.distance(i, j)))
		}
	}
	return finishTable(b), nil
}
