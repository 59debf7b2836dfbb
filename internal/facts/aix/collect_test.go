package aix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/golden"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// loadBundle reads a test bundle directory into the map Collect takes.
func loadBundle(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var testNow = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func collectDir(t testing.TB, name string) *snapshot.Snapshot {
	return Collect(loadBundle(t, filepath.Join("testdata", "bundles", name)), Options{Path: name, Version: "test", Now: testNow})
}

// The bundles of testdata/bundles give the snapshots of
// testdata/golden/NAME.json (go test ./internal/facts/aix -update).
func TestGoldenBundles(t *testing.T) {
	ents, err := os.ReadDir(filepath.Join("testdata", "bundles"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, e := range ents {
		s := collectDir(t, e.Name())
		b, err := snapshot.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		// The snapshot reads back as it was written.
		if _, err := snapshot.Parse(e.Name(), b); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		got[e.Name()+".json"] = b
	}
	golden.Check(t, golden.Set{Dir: filepath.Join("testdata", "golden")}, got)
}

func absence(s *snapshot.Snapshot, fact string) string {
	var out []string
	for _, a := range s.Absent {
		if a.Fact == fact {
			out = append(out, a.Path+": "+a.Reason)
		}
	}
	return strings.Join(out, "; ")
}

// What the contract names, read from the AIX 7.2 bundle.
func TestAIX72Contract(t *testing.T) {
	s := collectDir(t, "aix72")
	a := s.AIX
	if a == nil {
		t.Fatal("no aix section")
	}
	if a.OSLevel == nil || *a.OSLevel != "7200-05-03-2148" || s.Host.OS != "AIX 7.2 TL5 SP3" || s.Host.OSVersionID != "7.2" || s.Host.Hostname != "db1" {
		t.Errorf("oslevel %v, host %+v", a.OSLevel, s.Host)
	}
	lp := a.LPAR
	if lp == nil || lp.Name != "db1" || lp.Type != "Shared-SMT-8" || lp.Mode != "Uncapped" || *lp.SMT != 8 || *lp.EntitledCapacity != 2 ||
		*lp.OnlineVCPUs != 4 || *lp.OnlineMemoryMB != 65536 || !*lp.Shared {
		t.Errorf("lpar = %+v", lp)
	}
	if len(a.FCAdapters) != 2 {
		t.Fatalf("fc adapters = %+v", a.FCAdapters)
	}
	f0, f1 := a.FCAdapters[0], a.FCAdapters[1]
	if f0.Name != "fcs0" || *f0.NumCmdElems != 2048 || *f0.MaxXferSize != 0x400000 || *f0.NoCommandResourceCount != 1342 ||
		*f0.NoDMAResourceCount != 0 || *f0.NoAdapterElementsCount != 0 || *f0.EffectiveMaxTransfer != 0x400000 || *f0.PortSpeedGbit != 8 || f0.PortSpeed != "8 GBIT" {
		t.Errorf("fcs0 = %+v", f0)
	}
	// fcs1's fcstat failed: its lsattr is kept, its counters are absent with the exit code.
	if *f1.NumCmdElems != 500 || f1.NoCommandResourceCount != nil || !strings.Contains(absence(s, "aix.fc_adapters.stats"), "failed: fcstat -e fcs1 exited 255: Error accessing ODM") {
		t.Errorf("fcs1 = %+v, absence %q", f1, absence(s, "aix.fc_adapters.stats"))
	}
	if a.VmstatV["pending disk I/Os blocked with no pbuf"] != 1285 || a.VmstatV["filesystem I/Os blocked with no fsbuf"] != 2228 || a.VmstatV["minperm percentage"] != 3 {
		t.Errorf("vmstat_v = %v", a.VmstatV)
	}
	if len(a.PagePools) != 3 || a.PagePools[2].SizeKB != 16384 || *a.PagePools[2].PoolSize != 0 || a.PagePools[0].PoolSize != nil || *a.PagePools[0].Inuse != 6234567 {
		t.Errorf("page pools = %+v", a.PagePools)
	}
	byName := map[string]snapshot.AIXDisk{}
	for _, d := range a.Disks {
		byName[d.Name] = d
	}
	if names := len(a.Disks); names != 5 || a.Disks[3].Name != "hdisk10" {
		t.Errorf("disks = %d, order %v", names, a.Disks)
	}
	h10 := byName["hdisk10"]
	if !h10.Generic || *h10.QueueDepth != 1 || h10.ReservePolicy != "single_path" || *h10.MaxTransfer != 0x40000 || len(h10.IOStat) != 3 || !h10.IOStat[0].SinceBoot || h10.IOStat[1].SinceBoot {
		t.Errorf("hdisk10 = %+v", h10)
	}
	if v := h10.IOStat[1]; *v.ReadAvgServMS != 4.2 || *v.QueueAvgTimeMS != 21.5 || *v.SQFull != 3400 || *v.WriteMaxServMS != 1200 || *v.BWrtn != 946200 {
		t.Errorf("hdisk10 iostat = %+v", v)
	}
	h1 := byName["hdisk1"]
	if h1.Generic || *h1.QueueDepth != 20 || h1.Algorithm != "shortest_queue" || len(h1.Paths) != 2 || h1.Attributes["location"].Value != "" || h1.Attributes["location"].Description != "Location Label" {
		t.Errorf("hdisk1 = %+v", h1)
	}
	if byName["hdisk0"].Location != "" || byName["hdisk0"].Description != "Virtual SCSI Disk Drive" {
		t.Errorf("hdisk0 = %+v", byName["hdisk0"])
	}
	// hdisk11 is Defined: no lsattr in the bundle, no iostat.
	if h11 := byName["hdisk11"]; h11.Attributes != nil || !strings.Contains(absence(s, "aix.disks.attributes"), "commands/lsattr_-El_hdisk11: not present in the bundle") {
		t.Errorf("hdisk11 = %+v; %s", h11, absence(s, "aix.disks.attributes"))
	}
	if v := a.Tunables.IOO["aio_maxservers"]; v.Kind != "number" || *v.Number != 30 {
		t.Errorf("ioo aio_maxservers = %+v", v)
	}
	if v := a.Tunables.VMO["ame_cpus_per_pool"]; v.Kind != "n/a" || v.Number != nil {
		t.Errorf("vmo ame_cpus_per_pool = %+v", v)
	}
	if *a.Sys0["maxpout"].Number != 8193 || *a.Sys0["minpout"].Number != 4096 || *a.Sys0["maxuproc"].Number != 16384 {
		t.Errorf("sys0 = %+v", a.Sys0)
	}
	if a.AIO0 != nil || !strings.Contains(absence(s, "aix.aio0"), "AIX 6.1 and later have no aio0 device") {
		t.Errorf("aio0 = %v, %q", a.AIO0, absence(s, "aix.aio0"))
	}
	var redo *snapshot.AIXFilesystem
	for i := range a.Filesystems {
		if a.Filesystems[i].Mount == "/oraredo" {
			redo = &a.Filesystems[i]
		}
	}
	if redo == nil || *redo.AGBlkSize != 4096 || !*redo.InlineLog || strings.Join(redo.Options, ",") != "rw,cio,noatime" {
		t.Errorf("/oraredo = %+v", redo)
	}
	if data := a.Filesystems[3]; data.Attributes["ISNAPSHOT"] != "no" || data.Attributes["MountGuard"] != "no" {
		t.Errorf("a wrapped -q line: %+v", data.Attributes)
	}
	if m := a.Mounts[len(a.Mounts)-1]; m.Node != "nfssrv01" || m.VFS != "nfs3" || m.Path != "/backup" || m.Date != "Nov 10 09:15" {
		t.Errorf("nfs mount = %+v", m)
	}
	if m := a.Mounts[8]; m.Path != "/oradata" || strings.Join(m.Options, ",") != "rw,cio,noatime,log=INLINE" || m.Node != "" {
		t.Errorf("oradata mount = %+v", m)
	}
	if len(a.Users) != 1 || strings.Join(a.Users[0].Capabilities, ",") != "CAP_NUMA_ATTACH,CAP_PROPAGATE" {
		t.Errorf("users = %+v", a.Users)
	}
	if len(a.SRADs) != 2 || a.SRADs[1].REF1 != 1 || len(a.SRADs[1].CPUs) != 16 || *a.SRADs[0].MemMB != 31512.81 {
		t.Errorf("srads = %+v", a.SRADs)
	}
	if a.SMT == nil || !*a.SMT.Enabled || *a.SMT.MaxThreads != 8 || len(a.SMT.Procs) != 4 || a.SMT.Procs[3].Name != "proc24" || len(a.SMT.Procs[3].BindCPUs) != 8 {
		t.Errorf("smt = %+v", a.SMT)
	}
	if len(a.Rsets) != 3 || a.Rsets[0].Name != "sys/srad.0" || len(a.Rsets[1].CPUs) != 16 || a.Rsets[2].Name != "sys/sys0" || *a.Rsets[2].CPUCount != 32 {
		t.Errorf("rsets = %+v", a.Rsets)
	}
	roles := []string{}
	for _, p := range a.Processes {
		roles = append(roles, p.Role+":"+p.Instance)
	}
	if strings.Join(roles, " ") != "pmon:ORCL background:ORCL background:ORCL shadow:ORCL listener:LISTENER" || *a.ProcessCount != 10 {
		t.Errorf("processes = %v (%d)", roles, *a.ProcessCount)
	}
	if a.TZ == nil || *a.TZ != "CET-1CEST,M3.5.0,M10.5.0/3" || !s.CollectedAt.Equal(time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)) {
		t.Errorf("tz %v, collected_at %v", a.TZ, s.CollectedAt)
	}
	if s.Source.Kind != "aix-bundle" || !s.Source.Root || s.Host.Virt.Type != "powervm" {
		t.Errorf("source %+v virt %+v", s.Source, s.Host.Virt)
	}
	// The Linux sections are absent with the reason, not zero.
	for _, f := range LinuxSections {
		if absence(s, f) != ": "+LinuxReason {
			t.Errorf("%s: %q", f, absence(s, f))
		}
	}
}
