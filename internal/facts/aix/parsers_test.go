package aix

import (
	"strings"
	"testing"
)

// AIX 5.3's iostat -D: one queue-size column (avgqsz), times with S.
const iostat53 = `
System configuration: lcpu=4 drives=2 paths=2 vdisks=0

hdisk0          xfer:  %tm_act      bps      tps      bread      bwrtn
                          1.2    12.3K      2.1       4.1K       8.2K
                read:      rps  avgserv  minserv  maxserv   timeouts      fails
                          0.5      6.1      0.2      2.1S           0          0
               write:      wps  avgserv  minserv  maxserv   timeouts      fails
                          1.6      3.2      0.3    410.0           0          0
               queue:  avgtime  mintime  maxtime  avgqsz      sqfull
                          1.1      0.0    220.0      0.0           12
--------------------------------------------------------------------------------
`

func TestParseIostat53(t *testing.T) {
	m, n, err := parseIostatD(iostat53)
	if err != nil || len(n) != 0 {
		t.Fatal(err, n)
	}
	s := m["hdisk0"]
	if len(s) != 1 || !s[0].SinceBoot || *s[0].ReadMaxServMS != 2100 || *s[0].AvgWQSz != 0 || s[0].AvgSQSz != nil || *s[0].SQFull != 12 || *s[0].BPS != 12300 {
		t.Errorf("%+v", s)
	}
	// A figures line cut short is a note; the disk keeps what it has.
	cut := strings.Replace(iostat53, "0.5      6.1      0.2      2.1S           0          0", "0.5      6.1", 1)
	m, n, err = parseIostatD(cut)
	if err != nil || len(n) != 1 || !strings.Contains(n[0].Error(), "line 7: hdisk0 read: expected 6 figures") || m["hdisk0"][0].ReadAvgServMS != nil || *m["hdisk0"][0].WriteAvgServMS != 3.2 {
		t.Errorf("%v %v %+v", err, n, m)
	}
	if _, _, err := parseIostatD("garbage\n"); err == nil {
		t.Error("garbage read as iostat -D")
	}
}

// iostat -D's K, M, G, T are powers of 1000. IBM's iostat reference says
// only that -D's rates and times carry a suffix for their unit (bytes per
// second and milliseconds by default), not its base; the outputs decide.
// A disk reading nothing but AIX's 4 KB pages at 4.0 transfers/s moves
// 16,384 bytes/s, which AIX prints "16.4K" (16.0K were K 1024), as in
// published captures of iostat -D; 100 transfers/s of 256 KiB are
// 26,214,400 bytes/s, "26.2M" (25.0M were M 1024²). Times: S is seconds.
const iostatUnits = `
System configuration: lcpu=8 drives=2 paths=2 vdisks=2

hdisk6          xfer:  %tm_act      bps      tps      bread      bwrtn
                          9.6     16.4K      4.0      16.4K        0.0
                read:      rps  avgserv  minserv  maxserv   timeouts      fails
                          4.0      4.9      0.3      9.9           0          0
               write:      wps  avgserv  minserv  maxserv   timeouts      fails
                          0.0      0.0      0.0      0.0           0          0
               queue:  avgtime  mintime  maxtime  avgwqsz    avgsqsz     sqfull
                          0.0      0.0      1.4S     0.0        0.0         0.0
--------------------------------------------------------------------------------
hdisk7          xfer:  %tm_act      bps      tps      bread      bwrtn
                         71.0     26.2M    100.0      26.2M        0.0
                read:      rps  avgserv  minserv  maxserv   timeouts      fails
                        100.0      6.8      0.4     31.0           0          0
               write:      wps  avgserv  minserv  maxserv   timeouts      fails
                          0.0      0.0      0.0      0.0           0          0
               queue:  avgtime  mintime  maxtime  avgwqsz    avgsqsz     sqfull
                          0.2      0.0      4.1      0.0        0.7         1.1K
--------------------------------------------------------------------------------
`

func TestIostatSuffixesDecimal(t *testing.T) {
	m, n, err := parseIostatD(iostatUnits)
	if err != nil || len(n) != 0 {
		t.Fatal(err, n)
	}
	for disk, perIO := range map[string]float64{"hdisk6": 4096, "hdisk7": 256 * 1024} {
		s := m[disk][0]
		got := *s.BPS / *s.TPS
		// The printed figure has three significant digits: within 0.5 %.
		if d := got/perIO - 1; d > 0.005 || d < -0.005 {
			t.Errorf("%s: %.0f bytes per transfer, want %.0f (the suffix's base is wrong)", disk, got, perIO)
		}
		if *s.BRead != *s.BPS {
			t.Errorf("%s: bread %v, bps %v", disk, *s.BRead, *s.BPS)
		}
	}
	if s := m["hdisk6"][0]; *s.BPS != 16400 || *s.QueueMaxTimeMS != 1400 {
		t.Errorf("hdisk6: bps %v (16.4K), maxtime %v ms (1.4S)", *s.BPS, *s.QueueMaxTimeMS)
	}
	if s := m["hdisk7"][0]; *s.BPS != 26.2e6 || *s.SQFull != 1100 {
		t.Errorf("hdisk7: bps %v (26.2M), sqfull %v (1.1K)", *s.BPS, *s.SQFull)
	}
}

func TestParseLparstatLevels(t *testing.T) {
	for _, c := range []struct {
		typ    string
		smt    int
		shared bool
	}{{"Shared-SMT", 2, true}, {"Dedicated", 1, false}, {"Shared-SMT-4", 4, true}, {"Dedicated-SMT-8", 8, false}, {"Shared", 1, true}} {
		lp, n, err := parseLparstat("Partition Name : p1\nType : " + c.typ + "\nOnline Memory : 8 GB\n")
		if err != nil || len(n) != 0 || *lp.SMT != c.smt || *lp.Shared != c.shared || *lp.OnlineMemoryMB != 8192 {
			t.Errorf("%s: %+v %v %v", c.typ, lp, n, err)
		}
	}
	if _, _, err := parseLparstat("lparstat: 0551-xxx cannot open\n"); err == nil {
		t.Error("an error message read as lparstat -i")
	}
}

func TestParseSmtctlNotCapable(t *testing.T) {
	smt, n, err := parseSmtctl("This system is not SMT capable.\n")
	if err != nil || len(n) != 0 || *smt.Capable || smt.Enabled != nil || len(smt.Procs) != 0 {
		t.Errorf("%+v %v %v", smt, n, err)
	}
}

func TestParseLssradMemoryOnly(t *testing.T) {
	s := "REF1   SRAD        MEM      CPU\n0\n          0   12363.94      0-3 8-11\n          1    2500.00\n1\n          2       0.00      4-7\n"
	r, n, err := parseLssrad(s)
	if err != nil || len(n) != 0 || len(r) != 3 || len(r[0].CPUs) != 8 || r[0].CPUs[4] != 8 || len(r[1].CPUs) != 0 || *r[1].MemMB != 2500 || r[2].REF1 != 1 {
		t.Errorf("%+v %v %v", r, n, err)
	}
}

// AIX 5.3: lsps without Chksum, svmon without a page size table, aio0.
func TestParseAIX53Formats(t *testing.T) {
	ps, n, err := parseLsps("Page Space  Physical Volume  Volume Group  Size  %Used  Active  Auto  Type\nhd6  hdisk0  rootvg  2GB  12  yes  yes  lv\n")
	if err != nil || len(n) != 0 || len(ps) != 1 || *ps[0].SizeMB != 2048 || *ps[0].UsedPct != 12 || ps[0].Chksum != nil {
		t.Errorf("%+v %v %v", ps, n, err)
	}
	sv, _, err := parseSvmonG("               size      inuse       free        pin    virtual\nmemory      2097152    1960000     137152     310000    1100000\npg space     524288       3100\n")
	if err != nil || sv.Pools != nil || *sv.Memory.Size != 2097152 || *sv.Memory.PgspInuse != 3100 || sv.Memory.Mmode != "" {
		t.Errorf("%+v %v", sv, err)
	}
	aio, n, err := parseLsattr("autoconfig available STATE to be configured at system restart True\nfastpath   enable    State of fast path                       True\nkprocprio  39        Server PRIORITY                          True\nmaxreqs    4096      Maximum number of REQUESTS               True\nmaxservers 10        MAXIMUM number of servers per cpu        True\nminservers 1         MINIMUM number of servers                True\n")
	if err != nil || len(n) != 0 || *aio["maxservers"].Number != 10 || aio["autoconfig"].Value != "available" || aio["maxreqs"].Description != "Maximum number of REQUESTS" {
		t.Errorf("%+v %v %v", aio, n, err)
	}
}

func TestParseLsdevLocations(t *testing.T) {
	d, n, err := parseLsdev("fcs0 Available C3-T1 Virtual Fibre Channel Client Adapter\nent1 Available 2-Port Gigabit Ethernet\nhdisk3 Defined 00-00-00-1,0 Other SCSI Disk Drive\n")
	if err != nil || len(n) != 0 || d[0].Location != "" || d[0].Description != "2-Port Gigabit Ethernet" || d[1].Location != "C3-T1" || d[2].Location != "00-00-00-1,0" || !GenericDisk(d[2].Description) {
		t.Errorf("%+v %v %v", d, n, err)
	}
	for _, desc := range []string{"MPIO IBM 2076 FC Disk", "Virtual SCSI Disk Drive", "Hitachi MPIO Disk", "Other FC SCSI Disk"} {
		if GenericDisk(desc) {
			t.Errorf("%q is not AIX's generic definition", desc)
		}
	}
}

func TestParseTunablesKinds(t *testing.T) {
	m, n, err := parseTunables("   minperm% = 3\n  lru_file_repage = n/a\n  some_flag = on\n  big = 0x10\nnot a tunable line\n")
	if err != nil || len(n) != 1 || m["minperm%"].Kind != "number" || m["lru_file_repage"].Kind != "n/a" || m["some_flag"].Kind != "text" || *m["big"].Number != 16 {
		t.Errorf("%+v %v %v", m, n, err)
	}
}

func TestParsePsEfDates(t *testing.T) {
	r, n, err := parsePsEf("     UID     PID    PPID   C    STIME    TTY  TIME CMD\n  oracle  1  0  0 Nov 10 - 0:01 ora_smon_X\n  oracle  2  1  0 09:15:02 pts/1 10:01 oracleX (LOCAL=NO)\n  root 3 1 0 <defunct>\n")
	if err != nil || len(n) != 0 || len(r) != 3 || r[0].STime != "Nov 10" || r[1].TTY != "pts/1" || r[1].Cmd != "oracleX (LOCAL=NO)" || r[2].Cmd != "<defunct>" {
		t.Errorf("%+v %v %v", r, n, err)
	}
}

func TestParseMetaStatuses(t *testing.T) {
	m, n, err := parseMeta("format: dbhost-aix-bundle 1\nran: ps -ef\nran: lsattr -El hdisk0 (exit 1)\nmissing: lssrad -av\nfailed: fcstat -e fcs0 (exit 255)\n")
	if err != nil || len(n) != 0 {
		t.Fatal(err, n)
	}
	c := m.byCmd
	if c["ps -ef"].Status != "ok" || c["lsattr -El hdisk0"].Status != "failed" || c["lssrad -av"].ExitCode != 127 || c["lssrad -av"].File != "" || c["fcstat -e fcs0"].File != "commands/fcstat_-e_fcs0" {
		t.Errorf("%+v", c)
	}
	if _, _, err := parseMeta("format: something-else 3\n"); err == nil {
		t.Error("a foreign format accepted")
	}
}

func TestFile(t *testing.T) {
	for cmd, want := range map[string]string{"lparstat -i": "commands/lparstat_-i", "iostat -D 2 3": "commands/iostat_-D_2_3", "lsuser -a capabilities oracle": "commands/lsuser_-a_capabilities_oracle"} {
		if got := File(cmd); got != want {
			t.Errorf("File(%q) = %q", cmd, got)
		}
	}
}

// A bundle without meta still reads its command files; a missing meta is
// one absence.
func TestCollectWithoutMeta(t *testing.T) {
	s := Collect(map[string][]byte{"commands/oslevel_-s": []byte("7300-02-01-2346\n"), "commands/lsattr_-El_hdisk7": []byte("queue_depth 64 Queue DEPTH True+\n")}, Options{Now: testNow})
	if s.AIX.OSLevel == nil || s.Host.OS != "AIX 7.3 TL2 SP1" || absence(s, "aix.bundle") == "" {
		t.Errorf("%+v %v", s.Host, s.Absent)
	}
	// Without lsdev -Cc disk, the disks are those of the lsattr files.
	if len(s.AIX.Disks) != 1 || s.AIX.Disks[0].Name != "hdisk7" || *s.AIX.Disks[0].QueueDepth != 64 || absence(s, "aix.disks.description") == "" || absence(s, "aix.disks") != "" {
		t.Errorf("disks %+v; %v", s.AIX.Disks, s.Absent)
	}
}
