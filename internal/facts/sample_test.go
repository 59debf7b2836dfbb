package facts

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadPIDNUMA(t *testing.T) {
	d := t.TempDir()
	w := func(p, s string) {
		full := filepath.Join(d, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(s), 0o644)
	}
	stat := func(cpu string) string {
		s := "42 (ora_pmon_X) S"
		for i := 4; i <= 38; i++ {
			s += " 0"
		}
		return s + " " + cpu + " 0 0\n"
	}
	w("proc/42/status", "Name:\tora_pmon_X\nState:\tS\nPPid:\t1\nUid:\t54321\t54321\t54321\t54321\nThreads:\t2\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0\n")
	w("proc/42/stat", stat("3"))
	w("proc/42/task/42/stat", stat("3"))
	w("proc/42/task/43/stat", stat("1"))
	w("proc/42/numa_maps", "7f0000000000 default file=/SYSV00000000\\040(deleted) huge dirty=10 N0=6 N1=4 kernelpagesize_kB=2048\n")
	p, err := ReadPIDNUMA(Root{Dir: d}, 42)
	if err != nil {
		t.Fatal(err)
	}
	if p.Comm != "ora_pmon_X" || len(p.CPUsAllowed) != 4 || len(p.MemsAllowed) != 1 || p.LastCPU == nil || *p.LastCPU != 3 {
		t.Errorf("%+v", p)
	}
	if len(p.ThreadCPUs) != 2 || p.ThreadCPUs[0] != 1 || p.ThreadCPUs[1] != 3 {
		t.Errorf("thread CPUs %v", p.ThreadCPUs)
	}
	if len(p.NUMA) != 2 || p.NUMA[0].HugeKB != 6*2048 || p.NUMA[1].HugeKB != 4*2048 {
		t.Errorf("numa %+v", p.NUMA)
	}
	if len(p.Absent) != 0 {
		t.Errorf("absent %v", p.Absent)
	}
	// numa_maps unreadable: an absence, not a failure; no process: an error.
	os.Remove(filepath.Join(d, "proc/42/numa_maps"))
	p, err = ReadPIDNUMA(Root{Dir: d}, 42)
	if err != nil || len(p.Absent) != 1 || p.Absent[0].Fact != "numa" {
		t.Errorf("%v %+v", err, p)
	}
	if _, err := ReadPIDNUMA(Root{Dir: d}, 7); err == nil {
		t.Error("no error for a missing process")
	}
	w("proc/stat", "cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n")
	if l, err := ReadCPUStat(Root{Dir: d}); err != nil || len(l.PerCPU) != 1 {
		t.Errorf("%v %+v", err, l)
	}
	w("proc/interrupts", "           CPU0\n  1:         5   IO-APIC   1-edge      i8042\n")
	if q, err := ReadInterrupts(Root{Dir: d}); err != nil || len(q.IRQs) != 1 || q.IRQs[0].Total != 5 || len(q.CPUs) != 1 {
		t.Errorf("%v %+v", err, q)
	}
}
