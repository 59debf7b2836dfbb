package rules

import (
	"fmt"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// aixHost returns a healthy AIX 7.1 LPAR on POWER7 running one Oracle
// instance (ORCL): SMT4, two SRADs, two FC adapters (num_cmd_elems 1024,
// max_xfer_size 0x200000), four MPIO disks at queue_depth 32 with quiet
// iostat -D figures, the AIX 7.1 default tunables (I/O pacing 8193/4096,
// minperm% 3, maxperm% 90, AIO 30 servers per CPU), Oracle file systems
// mounted noatime,cio with the redo on agblksize 512, a 16 MB page pool in
// use and a POSIX TZ. Like host(), what the AIX rules read as healthy.
func aixHost() *snapshot.Snapshot {
	i64 := func(v int64) *int64 { return &v }
	attr := func(v int64) snapshot.AIXAttr {
		return snapshot.AIXAttr{Value: fmt.Sprint(v), Kind: "number", Number: i64(v)}
	}
	tun := func(v int64) snapshot.AIXValue {
		return snapshot.AIXValue{Value: fmt.Sprint(v), Kind: "number", Number: i64(v)}
	}
	f := func(v float64) *float64 { return &v }
	a := &snapshot.AIX{
		Bundle:  snapshot.AIXBundle{Format: "dbhost-aix-bundle 1", Collector: "dbhost-collect-aix.sh 1", Hostname: "aixdb1"},
		OSLevel: ptr("7100-04-06-1806"),
		Prtconf: &snapshot.AIXPrtconf{SystemModel: "IBM,8233-E8B", ProcessorType: "PowerPC_POWER7",
			ImplementationMode: "POWER 7", Processors: ptr(8)},
		LPAR: &snapshot.AIXLPAR{Name: "aixdb1", Type: "Dedicated-SMT-4", Mode: "Capped", SMT: ptr(4),
			OnlineVCPUs: ptr(8), PhysicalCPUsInSystem: ptr(32)},
		SMT: &snapshot.AIXSMT{Capable: ptr(true), MaxThreads: ptr(4), Enabled: ptr(true), BootMode: "set to enabled"},
		SRADs: []snapshot.AIXSRAD{
			{REF1: 0, SRAD: 0, MemMB: f(31000), CPUs: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
			{REF1: 0, SRAD: 1, MemMB: f(31000), CPUs: []int{16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}},
		},
		Tunables: snapshot.AIXTunables{
			IOO: map[string]snapshot.AIXValue{"aio_maxservers": tun(30), "aio_minservers": tun(3), "aio_maxreqs": tun(65536),
				"pv_min_pbuf": tun(512), "numfsbufs": tun(196), "j2_dynamicBufferPreallocation": tun(16)},
			VMO: map[string]snapshot.AIXValue{"minperm%": tun(3), "maxperm%": tun(90), "maxclient%": tun(90),
				"lgpg_regions": tun(1024), "lgpg_size": tun(16777216), "strict_maxclient": tun(1)},
			VMORestricted: map[string]snapshot.AIXValue{"maxclient%": tun(90), "maxperm%": tun(90), "minperm%": tun(3),
				"strict_maxclient": tun(1), "page_steal_method": tun(1)},
			NO:     map[string]snapshot.AIXValue{},
			Schedo: map[string]snapshot.AIXValue{},
		},
		Sys0: map[string]snapshot.AIXAttr{"maxpout": attr(8193), "minpout": attr(4096), "maxuproc": attr(16384)},
		Mounts: []snapshot.AIXMount{
			{Device: "/dev/hd4", Path: "/", VFS: "jfs2", Options: []string{"rw", "log=/dev/hd8"}},
			{Device: "/dev/orabinlv", Path: "/u01", VFS: "jfs2", Options: []string{"rw", "noatime", "log=/dev/hd8"}},
			{Device: "/dev/oradatalv", Path: "/oradata", VFS: "jfs2", Options: []string{"rw", "noatime", "cio", "log=INLINE"}},
			{Device: "/dev/oraredolv", Path: "/oraredo", VFS: "jfs2", Options: []string{"rw", "noatime", "cio", "log=INLINE"}},
		},
		Filesystems: []snapshot.AIXFilesystem{
			{Name: "/dev/hd4", Mount: "/", VFS: "jfs2", AGBlkSize: i64(4096), Options: []string{"rw"}},
			{Name: "/dev/orabinlv", Mount: "/u01", VFS: "jfs2", AGBlkSize: i64(4096), Options: []string{"rw", "noatime"}},
			{Name: "/dev/oradatalv", Mount: "/oradata", VFS: "jfs2", AGBlkSize: i64(4096), Options: []string{"rw", "noatime", "cio"}},
			{Name: "/dev/oraredolv", Mount: "/oraredo", VFS: "jfs2", AGBlkSize: i64(512), Options: []string{"rw", "noatime", "cio"}},
		},
		PagePools: []snapshot.AIXPagePool{
			{SizeKB: 4, Inuse: i64(2000000)},
			{SizeKB: 64, Inuse: i64(100000)},
			{SizeKB: 16384, PoolSize: i64(1024), Inuse: i64(4194304), Pin: i64(4194304)},
		},
		VmstatV: map[string]float64{"memory pages": 16252928, "minperm percentage": 3, "maxperm percentage": 90,
			"numperm percentage": 20, "pending disk I/Os blocked with no pbuf": 0, "paging space I/Os blocked with no psbuf": 0,
			"filesystem I/Os blocked with no fsbuf": 0, "client filesystem I/Os blocked with no fsbuf": 0,
			"external pager filesystem I/Os blocked with no fsbuf": 0},
		Users: []snapshot.AIXUser{{Name: "oracle", Capabilities: []string{"CAP_NUMA_ATTACH", "CAP_BYPASS_RAC_VMM", "CAP_PROPAGATE"}}},
		Rsets: []snapshot.AIXRset{
			{Type: "r", Name: "ORCL/0", CPUs: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
			{Type: "r", Name: "ORCL/1", CPUs: []int{16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}},
		},
		Processes: []snapshot.AIXProcess{
			{User: "oracle", PID: 4000, PPID: 1, Cmd: "ora_pmon_ORCL", Engine: "oracle", Role: "pmon", Instance: "ORCL"},
			{User: "oracle", PID: 4002, PPID: 1, Cmd: "ora_dbw0_ORCL", Engine: "oracle", Role: "background", Instance: "ORCL"},
			{User: "oracle", PID: 4100, PPID: 1, Cmd: "/u01/app/oracle/product/11.2.0/bin/tnslsnr LISTENER -inherit", Engine: "oracle", Role: "listener"},
		},
		DSCR: &snapshot.AIXDSCR{NumberOfStreams: ptr(16), PlatformDefaultPD: i64(5), PlatformDefaultPDName: "DPFD_DEEP",
			OSDefaultPD: i64(0), OSDefaultPDName: "DPFD_DEFAULT", PrefetchDepth: ptr(5), PrefetchOff: ptr(false)},
		PowerHA:      &snapshot.AIXPowerHA{Installed: false},
		ProcessCount: ptr(120),
		TZ:           ptr("CET-1CEST,M3.5.0,M10.5.0/3"),
	}
	for i := 0; i < 2; i++ {
		a.FCAdapters = append(a.FCAdapters, snapshot.AIXFCAdapter{Name: fmt.Sprintf("fcs%d", i), Status: "Available",
			Description: "8Gb PCI Express Dual Port FC Adapter", PortSpeed: "8 GBIT", PortSpeedGbit: f(8),
			NoDMAResourceCount: i64(0), NoAdapterElementsCount: i64(0), NoCommandResourceCount: i64(0),
			EffectiveMaxTransfer: i64(0x200000), NumCmdElems: i64(1024), MaxXferSize: i64(0x200000),
			Attributes: map[string]snapshot.AIXAttr{"num_cmd_elems": attr(1024), "max_xfer_size": attr(0x200000)}})
	}
	for i := 2; i < 6; i++ {
		a.Disks = append(a.Disks, snapshot.AIXDisk{Name: fmt.Sprintf("hdisk%d", i), Status: "Available",
			Location: "02-00-02", Description: "MPIO IBM 2076 FC Disk", QueueDepth: i64(32), MaxTransfer: i64(0x40000),
			Algorithm: "shortest_queue", ReservePolicy: "no_reserve",
			Attributes: map[string]snapshot.AIXAttr{"queue_depth": attr(32), "max_transfer": attr(0x40000)},
			Paths:      []snapshot.AIXPath{{Status: "Enabled", Parent: "fscsi0"}, {Status: "Enabled", Parent: "fscsi1"}},
			IOStat: []snapshot.AIXDiskIOStat{
				aixIO(true, 120, 1.2, 0.8, 0.0, 0),
				aixIO(false, 300, 1.5, 1.0, 0.1, 0),
				aixIO(false, 280, 1.4, 0.9, 0.1, 0),
			}})
	}
	return &snapshot.Snapshot{
		SchemaVersion: snapshot.SchemaVersion,
		Source:        snapshot.Source{Kind: "aix-bundle", Path: "aixdb1.aixbundle.tar.gz"},
		Host:          snapshot.Host{Hostname: "aixdb1", OS: "AIX 7100-04-06-1806", Arch: "ppc64", CmdlineArgs: map[string]string{}},
		AIX:           a,
		Absent:        []snapshot.Absence{},
		Processes:     []snapshot.Process{},
	}
}

// aixIO is one iostat -D report of a disk: tps, read and write average
// service times, wait queue average time (ms) and sqfull.
func aixIO(sinceBoot bool, tps, readServ, writeServ, qAvg, sqfull float64) snapshot.AIXDiskIOStat {
	f := func(v float64) *float64 { return &v }
	return snapshot.AIXDiskIOStat{SinceBoot: sinceBoot, TPS: f(tps), RPS: f(tps * 0.7), WPS: f(tps * 0.3),
		ReadAvgServMS: f(readServ), WriteAvgServMS: f(writeServ), QueueAvgTimeMS: f(qAvg), SQFull: f(sqfull)}
}

// aixAbsent clears nothing: it records an aix fact as absent, as the
// bundle reader would for a command missing on the host.
func aixAbsent(s *snapshot.Snapshot, fact, file, reason string) {
	s.Absent = append(s.Absent, snapshot.Absence{Fact: fact, Path: file, Reason: reason})
}

// TestAIXHostIsHealthy: every AIX rule passes (or is not applicable) on
// aixHost(), and no Linux rule judges it.
func TestAIXHostIsHealthy(t *testing.T) {
	for _, db := range []string{DBOracle, DBNone} {
		rep := Run(&Input{Snap: aixHost(), Workload: WorkloadOLTP, DB: db})
		for _, f := range rep.Findings {
			t.Errorf("%s: finding on the healthy AIX host: %s %s=%s (%s)", db, f.ID, f.Setting, f.Current, f.Evidence)
		}
		for _, c := range rep.CannotCheck {
			if r, _ := Lookup(c.ID); r.RunsOn(OSAIX) {
				t.Errorf("%s: %s could not check the healthy AIX host: %s", db, c.ID, c.Reason)
			}
		}
	}
}

// aixTun is a numeric ioo/vmo tunable.
func aixTun(v int64) snapshot.AIXValue {
	return snapshot.AIXValue{Value: fmt.Sprint(v), Kind: "number", Number: &v}
}
