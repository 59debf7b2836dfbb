package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// liveHost is host() with storage and a 2 MB hugepage pool for the live
// database rules: /srv/pg on LVM over nvme0n1, / and /srv/disk on the
// rotating sda, /san on a multipath LUN (sdb, sdc), /srv/wal on nvme1n1.
func liveHost(poolTotal, poolFree int64) *snapshot.Snapshot {
	s := host()
	f, t := false, true
	s.Storage.Devices = []snapshot.BlockDevice{
		{Name: "dm-0", Kind: "dm", DMName: "vg-data", Slaves: []string{"nvme0n1"}},
		{Name: "dm-1", Kind: "dm", DMName: "mpatha", DMUUID: "mpath-3600a", Multipath: true, Slaves: []string{"sdb", "sdc"}, Rotational: &t},
		{Name: "nvme0n1", Kind: "nvme", Rotational: &f, Holders: []string{"dm-0"}},
		{Name: "nvme1n1", Kind: "nvme", Rotational: &f},
		{Name: "sda", Kind: "disk", Rotational: &t},
		{Name: "sdb", Kind: "disk", Rotational: &t, Holders: []string{"dm-1"}},
		{Name: "sdc", Kind: "disk", Rotational: &t, Holders: []string{"dm-1"}},
	}
	s.Storage.Mounts = []snapshot.Mount{
		{Device: "/dev/sda2", Path: "/", FSType: "xfs"},
		{Device: "/dev/mapper/vg-data", Path: "/srv/pg", FSType: "xfs"},
		{Device: "/dev/nvme1n1", Path: "/srv/wal", FSType: "xfs"},
		{Device: "/dev/sda3", Path: "/srv/disk", FSType: "xfs"},
		{Device: "/dev/mapper/mpatha", Path: "/san", FSType: "xfs"},
	}
	s.Memory.Meminfo = map[string]int64{"Hugepagesize": 2048}
	s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: poolTotal, Free: poolFree, Default: true}}
	for i := range s.Topology.Nodes {
		s.Topology.Nodes[i].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048, Total: poolTotal / 2, Free: poolFree / 2}}
	}
	s.Sysctl["vm.overcommit_memory"] = "0"
	return s
}

// pgLive is a local PostgreSQL 15 server read over its socket, data in
// /srv/pg/data (LVM on NVMe), settings at defaults but shared_buffers 4 GiB.
func pgLive(s *snapshot.Snapshot, kv ...string) *snapshot.Database {
	s.Databases = append(s.Databases, snapshot.Database{Engine: "postgres", Local: true, User: "postgres",
		Connection: "user=postgres host=/run/postgresql port=5432 dbname=postgres", Version: "15.4", VersionNum: 150004,
		DataDirectory: "/srv/pg/data", WALDirectory: "/srv/pg/data/pg_wal", WALResolved: "pg_wal (/srv/pg/data/pg_wal) is a directory, not a symlink"})
	d := &s.Databases[len(s.Databases)-1]
	for _, st := range [][3]string{{"shared_buffers", "524288", "8kB"}, {"huge_pages", "try", ""}, {"huge_page_size", "0", "kB"},
		{"shared_memory_size", "4300", "MB"}, {"shared_memory_size_in_huge_pages", "2150", ""}, {"wal_buffers", "2048", "8kB"},
		{"max_connections", "100", ""}, {"random_page_cost", "4", ""}, {"effective_io_concurrency", "1", ""}, {"data_directory", "/srv/pg/data", ""}} {
		v := st[1]
		d.Settings = append(d.Settings, snapshot.DBSetting{Name: st[0], Value: &v, Unit: st[2]})
	}
	setLive(d, kv...)
	return d
}

// myLive is a local MariaDB server with a 4 GiB buffer pool in /srv/disk/mysql (rotating sda).
func myLive(s *snapshot.Snapshot, kv ...string) *snapshot.Database {
	s.Databases = append(s.Databases, snapshot.Database{Engine: "mariadb", Local: true, User: "root@localhost",
		Connection: "root@unix(/run/mysqld/mysqld.sock)/", Version: "10.11.6-MariaDB", VersionNum: 101106, DataDirectory: "/srv/disk/mysql"})
	d := &s.Databases[len(s.Databases)-1]
	for _, st := range [][2]string{{"innodb_buffer_pool_size", "4294967296"}, {"large_pages", "OFF"}, {"innodb_numa_interleave", "OFF"},
		{"innodb_flush_method", "O_DIRECT"}, {"innodb_io_capacity", "200"}, {"datadir", "/srv/disk/mysql/"}} {
		v := st[1]
		d.Settings = append(d.Settings, snapshot.DBSetting{Name: st[0], Value: &v})
	}
	setLive(d, kv...)
	return d
}

// setLive sets name=value pairs; "name=" with reason "!reason" makes the setting unread.
func setLive(d *snapshot.Database, kv ...string) {
	for _, p := range kv {
		name, v, _ := strings.Cut(p, "=")
		st := d.Setting(name)
		if st == nil {
			d.Settings = append(d.Settings, snapshot.DBSetting{Name: name})
			st = &d.Settings[len(d.Settings)-1]
		}
		if r, ok := strings.CutPrefix(v, "!"); ok {
			st.Value, st.Reason = nil, r
			continue
		}
		val := v
		st.Value, st.Reason = &val, ""
	}
}

// postmaster adds the server's postmaster (and backends on cpus) with its numa_maps.
func postmaster(s *snapshot.Snapshot, data string, mems []int, numa []snapshot.NodeMem, backendCPUs ...[]int) {
	s.Processes = append(s.Processes, snapshot.Process{PID: 100, Comm: "postgres", Engine: "postgres", Role: "postmaster", Instance: data,
		User: "postgres", UID: 26, PPID: 1, CPUsAllowed: []int{0, 1, 2, 3, 4, 5, 6, 7}, MemsAllowed: mems, NUMA: numa})
	for i, c := range backendCPUs {
		s.Processes = append(s.Processes, snapshot.Process{PID: 200 + i, Comm: "postgres", Engine: "postgres", Role: "backend",
			User: "postgres", UID: 26, PPID: 100, CPUsAllowed: c, MemsAllowed: mems})
	}
}

func TestLiveHelpers(t *testing.T) {
	s := liveHost(0, 0)
	in := &Input{Snap: s, DB: DBPostgres}
	for path, want := range map[string]string{"/srv/pg/data": "nvme", "/srv/wal/pg_wal": "nvme", "/var/lib/x": "rotational", "/san/db": "multipath", "/srv/disk": "rotational"} {
		class, _, how, why := in.dirDevice(path)
		if class != want || why != "" {
			t.Errorf("%s: %s (%s) %s", path, class, how, why)
		}
	}
	if _, phys, how, _ := in.dirDevice("/srv/pg/data"); len(phys) != 1 || phys[0] != "nvme0n1" || !strings.Contains(how, "/dev/mapper/vg-data = dm-0 on nvme0n1") {
		t.Errorf("%v %s", phys, how)
	}
	for unit, want := range map[string]int64{"8kB": 8192, "kB": 1024, "MB": 1 << 20, "": 1, "B": 1, "16MB": 16 << 20} {
		if got, err := pgUnitBytes(unit); err != nil || got != want {
			t.Errorf("%q: %d %v", unit, got, err)
		}
	}
	if _, err := pgUnitBytes("ms"); err == nil {
		t.Error("ms is no memory unit")
	}
	d := pgLive(s)
	if b, why := dbBytes(d, "shared_buffers"); b != 4<<30 || why != "" {
		t.Errorf("%d %s", b, why)
	}
	// A server that was not read: every rule on it "could not check" with its error.
	s.Databases = append(s.Databases, snapshot.Database{Engine: "postgres", Connection: "postmaster 7, data directory /x", Error: "needs root"})
	s.Databases = s.Databases[1:]
	rep := run(t, "db.pg-random-page-cost", s, WorkloadOLTP, DBPostgres)
	if len(rep.CannotCheck) != 1 || !strings.Contains(rep.CannotCheck[0].Reason, "needs root") {
		t.Errorf("%+v", rep)
	}
	// No live server at all: not applicable, and how to give one.
	rep = run(t, "db.pg-random-page-cost", host(), WorkloadOLTP, DBPostgres)
	if len(rep.NotApplicable) != 1 || !strings.Contains(rep.NotApplicable[0].Reason, "--pg") {
		t.Errorf("%+v", rep)
	}
}

// withVirtioDisk adds a virtio disk vda (rotational=1, as virtio-blk
// reports by default) mounted at /srv/vd: storage whose media the guest
// cannot see (issue 26).
func withVirtioDisk(s *snapshot.Snapshot) {
	t := true
	s.Storage.Devices = append(s.Storage.Devices, snapshot.BlockDevice{Name: "vda", Kind: "virtio", Rotational: &t})
	s.Storage.Mounts = append(s.Storage.Mounts, snapshot.Mount{Device: "/dev/vda1", Path: "/srv/vd", FSType: "xfs"})
}
