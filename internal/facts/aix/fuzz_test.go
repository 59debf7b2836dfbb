package aix

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode"

	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Every parser's fuzz target checks two things: any text gives a result or
// a *facts.ParseError (never a panic, at most maxNotes notes), and a record
// the fuzzer chose, printed as AIX prints it among other lines, is read
// back as it was (a round trip that fails on a wrong answer).

func checkAny[T any](t *testing.T, parse func(string) (T, notes, error), s string) {
	t.Helper()
	_, n, err := parse(s)
	if err != nil {
		if _, ok := err.(*facts.ParseError); !ok {
			t.Fatalf("error %T is not a *facts.ParseError: %v", err, err)
		}
	}
	if len(n) > maxNotes {
		t.Fatalf("%d notes, more than %d", len(n), maxNotes)
	}
}

// word reports whether s is one printable word without the separators a
// format uses.
func word(s string, seps string) bool {
	if s == "" || len(s) > 40 || strings.ContainsAny(s, seps) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) || r > unicode.MaxASCII {
			return false
		}
	}
	return true
}

func FuzzParseOSLevel(f *testing.F) {
	f.Add("7200-05-03-2148\n", uint16(7200), uint8(5), uint8(3), uint16(2148))
	f.Fuzz(func(t *testing.T, s string, v uint16, tl, sp uint8, wk uint16) {
		checkAny(t, parseOSLevel, s)
		want := fmt.Sprintf("%04d-%02d-%02d-%04d", v%10000, tl%100, sp%100, wk%10000)
		got, _, err := parseOSLevel("oslevel: warning\n" + want + "\r\n")
		if err != nil || got != want {
			t.Fatalf("%q: got %q, %v", want, got, err)
		}
	})
}

func FuzzParseLparstat(f *testing.F) {
	f.Add("Partition Name : db1\nType : Shared-SMT-4\n", uint8(4), uint16(200), uint16(4), uint32(65536))
	f.Fuzz(func(t *testing.T, s string, smt uint8, ec uint16, vcpus uint16, mem uint32) {
		checkAny(t, parseLparstat, s)
		typ := "Dedicated"
		if smt > 1 {
			typ = fmt.Sprintf("Shared-SMT-%d", smt)
		}
		in := fmt.Sprintf("Node Name                 : n\nPartition Name            : p\nType                      : %s\nEntitled Capacity         : %d.%02d\nOnline Virtual CPUs       : %d\nOnline Memory             : %d MB\n", typ, ec/100, ec%100, vcpus, mem)
		lp, _, err := parseLparstat(in)
		wantSMT := max(int(smt), 1)
		if err != nil || *lp.SMT != wantSMT || math.Abs(*lp.EntitledCapacity-float64(ec)/100) > 1e-9 || *lp.OnlineVCPUs != int(vcpus) || *lp.OnlineMemoryMB != int64(mem) {
			t.Fatalf("%q: %+v %v", in, lp, err)
		}
	})
}

func FuzzParsePrtconf(f *testing.F) {
	f.Add("System Model: IBM,8286-42A\nNumber Of Processors: 4\n", uint16(4), uint32(3525), uint32(65536))
	f.Fuzz(func(t *testing.T, s string, procs uint16, mhz uint32, mem uint32) {
		checkAny(t, parsePrtconf, s)
		in := fmt.Sprintf("System Model: IBM,9119-MME\nNumber Of Processors: %d\nProcessor Clock Speed: %d MHz\nMemory Size: %d MB\n\nNetwork Information\n        Host Name: x\n", procs, mhz, mem)
		pc, _, err := parsePrtconf(in)
		if err != nil || *pc.Processors != int(procs) || *pc.ClockMHz != int64(mhz) || *pc.MemoryMB != int64(mem) || pc.Fields["Host Name"] != "" {
			t.Fatalf("%q: %+v %v", in, pc, err)
		}
	})
}

func FuzzParseSmtctl(f *testing.F) {
	f.Add("This system is SMT capable.\nproc0 has 4 SMT threads.\n", uint8(4), uint8(2))
	f.Fuzz(func(t *testing.T, s string, threads, procs uint8) {
		checkAny(t, parseSmtctl, s)
		var b strings.Builder
		fmt.Fprintf(&b, "This system is SMT capable.\nThis system supports up to %d SMT threads per processor.\nSMT is currently enabled.\n", threads)
		np, nt := int(procs%16)+1, int(threads%8)+1
		for p := np - 1; p >= 0; p-- {
			fmt.Fprintf(&b, "\nproc%d has %d SMT threads.\n", p*nt, nt)
			for k := 0; k < nt; k++ {
				fmt.Fprintf(&b, "Bind processor %d is bound with proc%d\n", p*nt+k, p*nt)
			}
		}
		smt, _, err := parseSmtctl(b.String())
		if err != nil || *smt.MaxThreads != int(threads) || len(smt.Procs) != np || smt.Procs[np-1].Name != fmt.Sprintf("proc%d", (np-1)*nt) || len(smt.Procs[0].BindCPUs) != nt {
			t.Fatalf("%q: %+v %v", b.String(), smt, err)
		}
	})
}

func FuzzParseLssrad(f *testing.F) {
	f.Add("REF1   SRAD        MEM      CPU\n0\n          0   12363.94      0-15\n", uint8(0), uint8(3), uint32(1236394), uint8(8), uint8(4))
	f.Fuzz(func(t *testing.T, s string, ref, srad uint8, memc uint32, lo, n uint8) {
		checkAny(t, parseLssrad, s)
		cpus := ""
		if n > 0 {
			cpus = fmt.Sprintf("%d-%d", lo, int(lo)+int(n%32))
		}
		in := fmt.Sprintf("REF1   SRAD        MEM      CPU\n%d\n     %d   %d.%02d      %s\n", ref, srad, memc/100, memc%100, cpus)
		r, _, err := parseLssrad(in)
		wantCPUs := 0
		if n > 0 {
			wantCPUs = int(n%32) + 1
		}
		if err != nil || len(r) != 1 || r[0].REF1 != int(ref) || r[0].SRAD != int(srad) || math.Abs(*r[0].MemMB-float64(memc)/100) > 1e-6 || len(r[0].CPUs) != wantCPUs {
			t.Fatalf("%q: %+v %v", in, r, err)
		}
	})
}

func FuzzParseLsdev(f *testing.F) {
	f.Add("hdisk1 Available 02-00-01 MPIO IBM 2145 FC Disk\n", "hdisk3", "Other FC SCSI Disk Drive", true)
	f.Fuzz(func(t *testing.T, s, name, desc string, loc bool) {
		checkAny(t, parseLsdev, s)
		desc = strings.Join(strings.Fields(desc), " ")
		if !word(name, "") || desc == "" || locationRe().MatchString(strings.Fields(desc)[0]) {
			return
		}
		l := ""
		if loc {
			l = "02-00-01 "
		}
		in := fmt.Sprintf("%s Available %s%s\n", name, l, desc)
		d, _, err := parseLsdev("ent0 Available Virtual I/O Ethernet Adapter (l-lan)\n" + in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for _, x := range d {
			if x.Name == name && (x.Description != desc || (x.Location != "") != loc) && name != "ent0" {
				t.Fatalf("%q: %+v", in, x)
			}
		}
	})
}

func FuzzParseLsattr(f *testing.F) {
	f.Add("max_xfer_size 0x100000 Maximum Transfer Size True\n", "max_transfer", uint64(0x40000), true)
	f.Fuzz(func(t *testing.T, s, name string, v uint64, hex bool) {
		checkAny(t, parseLsattr, s)
		if !word(name, ":") || v > math.MaxInt64 {
			return
		}
		val := fmt.Sprint(v)
		if hex {
			val = fmt.Sprintf("0x%x", v)
		}
		in := fmt.Sprintf("%-16s %-20s %-30s True+\nlocation                              Location Label                 True\nqueue_depth      8                    Queue DEPTH                    True\n", name, val, "Some description")
		m, _, err := parseLsattr(in)
		if name == "location" || name == "queue_depth" {
			return
		}
		if err != nil || m[name].Number == nil || uint64(*m[name].Number) != v || m[name].Description != "Some description" || m["location"].Value != "" {
			t.Fatalf("%q: %+v %v", in, m, err)
		}
	})
}

func FuzzParseLspath(f *testing.F) {
	f.Add("Enabled hdisk0 fscsi0\n", "hdisk4", uint8(2))
	f.Fuzz(func(t *testing.T, s, disk string, n uint8) {
		checkAny(t, parseLspath, s)
		if !word(disk, "") {
			return
		}
		var b strings.Builder
		for k := 0; k < int(n%8); k++ {
			fmt.Fprintf(&b, "Enabled %s fscsi%d\n", disk, k)
		}
		m, _, err := parseLspath("Failed zz fscsi9\n" + b.String())
		if err != nil || len(m[disk]) != int(n%8) && disk != "zz" {
			t.Fatalf("%q: %+v %v", b.String(), m, err)
		}
	})
}

func FuzzParseIostatD(f *testing.F) {
	f.Add(iostat53, uint32(42), uint32(3400))
	f.Fuzz(func(t *testing.T, s string, serv, sqfull uint32) {
		checkAny(t, parseIostatD, s)
		in := fmt.Sprintf("hdisk9          xfer:  %%tm_act      bps      tps      bread      bwrtn\n  1.0  2.0K  3.0  4.0M  5.0\n"+
			"                read:      rps  avgserv  minserv  maxserv   timeouts      fails\n  1.0  %d.%d  0.1  2.0S  0  0\n"+
			"               queue:  avgtime  mintime  maxtime  avgwqsz    avgsqsz     sqfull\n  0.0  0.0  0.0  0.0  0.0  %d\n", serv/10, serv%10, sqfull)
		m, _, err := parseIostatD(in + in)
		st := m["hdisk9"]
		if err != nil || len(st) != 2 || !st[0].SinceBoot || st[1].SinceBoot || math.Abs(*st[1].ReadAvgServMS-float64(serv)/10) > 1e-6 ||
			*st[0].SQFull != float64(sqfull) || *st[0].ReadMaxServMS != 2000 || *st[0].BRead != 4e6 {
			t.Fatalf("%q: %+v %v", in, st, err)
		}
	})
}

func FuzzParseFcstat(f *testing.F) {
	f.Add("FC SCSI Adapter Driver Information\n  No Command Resource Count: 0\n", uint32(5), uint32(1))
	f.Fuzz(func(t *testing.T, s string, ncr, dma uint32) {
		checkAny(t, parseFcstat, s)
		in := fmt.Sprintf("FIBRE CHANNEL STATISTICS REPORT: fcs3\n\nIP over FC Adapter Driver Information\n  No DMA Resource Count: 77\n\nFC SCSI Adapter Driver Information\n  No DMA Resource Count: %d\n  No Adapter Elements Count: 0\n  No Command Resource Count: %d\n", dma, ncr)
		fi, _, err := parseFcstat(in)
		if err != nil || fi.Name != "fcs3" || *fi.NoCommandResourceCount != int64(ncr) || *fi.NoDMAResourceCount != int64(dma) {
			t.Fatalf("%q: %+v %v", in, fi, err)
		}
	})
}

func FuzzParseTunables(f *testing.F) {
	f.Add("  minperm% = 3\n", "maxperm%", int64(90))
	f.Fuzz(func(t *testing.T, s, name string, v int64) {
		checkAny(t, parseTunables, s)
		if !word(name, "=") {
			return
		}
		m, _, err := parseTunables(fmt.Sprintf("%30s = %d\n%30s = n/a\n", name, v, "zz_other"))
		if err != nil || m[name].Kind != "number" || *m[name].Number != v {
			t.Fatalf("%s = %d: %+v %v", name, v, m, err)
		}
	})
}

func FuzzParseVmstatV(f *testing.F) {
	f.Add("  1285 pending disk I/Os blocked with no pbuf\n", "filesystem I/Os blocked with no fsbuf", uint32(2228))
	f.Fuzz(func(t *testing.T, s, label string, v uint32) {
		checkAny(t, parseVmstatV, s)
		label = strings.Join(strings.Fields(label), " ")
		if label == "" || !word(strings.ReplaceAll(label, " ", "_"), "") {
			return
		}
		m, _, err := parseVmstatV(fmt.Sprintf("%21d %s\n%21s minperm percentage\n", v, label, "3.0"))
		if err != nil || m[label] != float64(v) && label != "minperm percentage" {
			t.Fatalf("%q: %v %v", label, m, err)
		}
	})
}

func FuzzParseSvmonG(f *testing.F) {
	f.Add("PageSize   PoolSize       inuse        pgsp         pin     virtual\nL   16 MB       100          20           0         100          20\n", uint32(100), uint32(20))
	f.Fuzz(func(t *testing.T, s string, pool, inuse uint32) {
		checkAny(t, parseSvmonG, s)
		in := fmt.Sprintf("               size       inuse        free         pin     virtual   mmode\nmemory     16777216    15234567     1542649     3456789     9876543     Ded\n\nPageSize   PoolSize       inuse        pgsp         pin     virtual\nL   16 MB  %10d  %10d           0           0           0\ns    4 KB         -     6234567       45678     1456789     4876543\n", pool, inuse)
		sv, _, err := parseSvmonG(in)
		if err != nil || len(sv.Pools) != 2 || sv.Pools[1].SizeKB != 16384 || *sv.Pools[1].PoolSize != int64(pool) || *sv.Pools[1].Inuse != int64(inuse) || sv.Pools[0].PoolSize != nil {
			t.Fatalf("%q: %+v %v", in, sv, err)
		}
	})
}

func FuzzParseMount(f *testing.F) {
	f.Add("         /dev/hd4         /                jfs2   Nov 10 09:12 rw,log=/dev/hd8\n", "/dev/oradatalv", "/oradata", "rw,cio,noatime", true)
	f.Fuzz(func(t *testing.T, s, dev, path, opts string, remote bool) {
		checkAny(t, parseMount, s)
		if !word(dev, "") || !word(path, "") || !word(opts, "") || monthRe().MatchString(path) {
			return
		}
		node := "        "
		if remote {
			node = "nfssrv01"
		}
		in := fmt.Sprintf("  node       mounted        mounted over    vfs       date        options\n-------- ---------------  ---------------  ------ ------------ ---------------\n%s %s %s jfs2 Nov 10 09:12 %s\n", node, dev, path, opts)
		m, _, err := parseMount(in)
		if err != nil || len(m) != 1 || m[0].Device != dev || m[0].Path != path || strings.Join(m[0].Options, ",") != strings.Join(splitComma(opts), ",") || (m[0].Node != "") != remote {
			t.Fatalf("%q: %+v %v", in, m, err)
		}
	})
}

func FuzzParseLsfsQ(f *testing.F) {
	f.Add("Name Nodename Mount Pt VFS Size Options Auto Accounting\n/dev/hd4 -- / jfs2 4194304 -- yes no\n  (lv size: 4194304, block size: 4096)\n", uint16(512), uint32(41943040), true)
	f.Fuzz(func(t *testing.T, s string, blk uint16, size uint32, wrap bool) {
		checkAny(t, parseLsfsQ, s)
		sep := " "
		if wrap {
			sep = "\n  "
		}
		in := fmt.Sprintf("Name            Nodename   Mount Pt               VFS   Size    Options    Auto Accounting\n/dev/redolv     --         /oraredo               jfs2  %d rw,cio yes  no\n  (lv size: %d, fs size: %d, block size: %d,%sinline log: yes, MAXEXT: 0)\n", size, size, size, blk, sep)
		fs, _, err := parseLsfsQ(in)
		if err != nil || len(fs) != 1 || *fs[0].SizeBlocks != int64(size) || (blk > 0 && *fs[0].AGBlkSize != int64(blk)) || !*fs[0].InlineLog || fs[0].Attributes["MAXEXT"] != "0" {
			t.Fatalf("%q: %+v %v", in, fs, err)
		}
	})
}

func FuzzParseLsps(f *testing.F) {
	f.Add("Page Space Physical Volume Volume Group Size %Used Active Auto Type Chksum\nhd6 hdisk0 rootvg 512MB 3 yes yes lv 0\n", uint32(8192), uint8(2), true)
	f.Fuzz(func(t *testing.T, s string, mb uint32, used uint8, gb bool) {
		checkAny(t, parseLsps, s)
		size, want := fmt.Sprintf("%dMB", mb), int64(mb)
		if gb {
			size, want = fmt.Sprintf("%dGB", mb), int64(mb)*1024
		}
		ps, _, err := parseLsps(fmt.Sprintf("Page Space      Physical Volume   Volume Group    Size %%Used Active  Auto  Type Chksum\nhd6             hdisk0            rootvg        %s     %d   yes   yes    lv     0\n", size, used))
		if err != nil || len(ps) != 1 || *ps[0].SizeMB != want || *ps[0].UsedPct != int(used) {
			t.Fatalf("%s: %+v %v", size, ps, err)
		}
	})
}

func FuzzParsePsEf(f *testing.F) {
	f.Add("     UID     PID    PPID   C    STIME    TTY  TIME CMD\n  oracle 4325562 1 0 Nov 10 - 3:05 ora_pmon_ORCL\n", uint32(4325562), "ora_lgwr_ORCL", true)
	f.Fuzz(func(t *testing.T, s string, pid uint32, cmd string, date bool) {
		checkAny(t, parsePsEf, s)
		cmd = strings.Join(strings.Fields(cmd), " ")
		if cmd == "" || strings.ContainsAny(cmd, "\r\n") {
			return
		}
		st := "09:15:02"
		if date {
			st = "Nov 10"
		}
		in := fmt.Sprintf("     UID     PID    PPID   C    STIME    TTY  TIME CMD\n  oracle %d 1 0 %s - 3:05 %s\n", pid, st, cmd)
		r, _, err := parsePsEf(in)
		if pid > math.MaxInt32 {
			return
		}
		if err != nil || len(r) != 1 || r[0].PID != int(pid) || r[0].STime != st || r[0].Cmd != cmd {
			t.Fatalf("%q: %+v %v", in, r, err)
		}
	})
}

func FuzzParseLsuser(f *testing.F) {
	f.Add("oracle capabilities=CAP_BYPASS_RAC_VMM,CAP_PROPAGATE\n", "CAP_NUMA_ATTACH", uint8(2))
	f.Fuzz(func(t *testing.T, s, c string, n uint8) {
		checkAny(t, parseLsuser, s)
		if !word(c, ",=:\"") {
			return
		}
		caps := make([]string, int(n%5))
		for i := range caps {
			caps[i] = c
		}
		u, _, err := parseLsuser("oracle capabilities=" + strings.Join(caps, ",") + "\n")
		if err != nil || len(u) != 1 || len(u[0].Capabilities) != len(caps) {
			t.Fatalf("%v: %+v %v", caps, u, err)
		}
	})
}

func FuzzParseLsrset(f *testing.F) {
	f.Add("T Name                 Owner    Group    Mode   CPU  Memory  Resources\nr sys/sys0 root system r----- 16 32768 sys/sys0\n    CPU: 0-15\n", uint8(16), uint8(8))
	f.Fuzz(func(t *testing.T, s string, lo, n uint8) {
		checkAny(t, parseLsrset, s)
		in := fmt.Sprintf("T Name                 Owner    Group    Mode   CPU  Memory  Resources\nr oracle/db1           oracle   dba      rw----    %d  1000  oracle/db1\n    CPU: %d-%d\n    MEM: <1 memory regions>\n", int(n)+1, lo, int(lo)+int(n))
		r, _, err := parseLsrset(in)
		if err != nil || len(r) != 1 || *r[0].CPUCount != int(n)+1 || len(r[0].CPUs) != int(n)+1 || r[0].CPUs[0] != int(lo) {
			t.Fatalf("%q: %+v %v", in, r, err)
		}
	})
}

func FuzzParseMeta(f *testing.F) {
	f.Add("format: dbhost-aix-bundle 1\nran: ps -ef\nfailed: fcstat -e fcs1 (exit 255)\n", "lsattr -El hdisk9", uint8(3))
	f.Fuzz(func(t *testing.T, s, cmd string, code uint8) {
		checkAny(t, parseMeta, s)
		cmd = strings.Join(strings.Fields(cmd), " ")
		if cmd == "" || strings.ContainsAny(cmd, "\r\n()") || code == 0 {
			return
		}
		m, _, err := parseMeta(fmt.Sprintf("format: %s\nfailed: %s (exit %d)\n", BundleFormat, cmd, code))
		if err != nil || m.byCmd[cmd].ExitCode != int(code) || m.byCmd[cmd].Status != "failed" || m.byCmd[cmd].File != File(cmd) {
			t.Fatalf("%q: %+v %v", cmd, m, err)
		}
	})
}

// Any text as any command's output: Collect fills what it can, never hits
// its panic guard, and the snapshot is one dbhost reads back.
func FuzzCollect(f *testing.F) {
	f.Add(uint8(2), "Partition Name : p\nType : Shared-SMT-4\n", "format: dbhost-aix-bundle 1\nran: lparstat -i\n")
	f.Add(uint8(7), "hdisk0 Available Virtual SCSI Disk Drive\n", "format: dbhost-aix-bundle 1\nfailed: lsdev -Cc disk (exit 3)\n")
	f.Fuzz(func(t *testing.T, which uint8, out, meta string) {
		cmds := append([]string{"lsattr -El hdisk0", "lsattr -El fcs0", "fcstat -e fcs0"}, Commands...)
		cmd := cmds[int(which)%len(cmds)]
		files := map[string][]byte{"meta": []byte(meta), File(cmd): []byte(out),
			File("lsdev -Cc disk"): []byte("hdisk0 Available Virtual SCSI Disk Drive\n"), File("lsdev -Cc adapter"): []byte("fcs0 Available 02-00 FC Adapter\n")}
		if cmd == "lsdev -Cc disk" || cmd == "lsdev -Cc adapter" {
			files[File(cmd)] = []byte(out)
		}
		s := Collect(files, Options{Now: testNow})
		for _, a := range s.Absent {
			if strings.HasPrefix(a.Reason, "internal error") {
				t.Fatalf("%s: %s", cmd, a.Reason)
			}
		}
		b, err := snapshot.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := snapshot.Parse("fuzz", b); err != nil {
			t.Fatalf("%s: the snapshot does not read back: %v", cmd, err)
		}
	})
}

func FuzzParseDscrctl(f *testing.F) {
	f.Add("Current DSCR settings:\n    Data Streams Version = V2.07\n    number_of_streams = 16\n", uint8(16), uint32(5), uint32(0))
	f.Fuzz(func(t *testing.T, s string, streams uint8, platform, os uint32) {
		checkAny(t, parseDscrctl, s)
		in := fmt.Sprintf("Current DSCR settings:\n    Data Streams Version = V2.06\n    number_of_streams = %d\nbad line\n    platform_default_pd = 0x%x (DPFD_X)\n    os_default_pd = %d\n", streams, platform, os)
		d, n, err := parseDscrctl(in)
		want := int(os & 7)
		if want == 0 {
			want = int(platform & 7)
		}
		if err != nil || len(n) != 1 || *d.NumberOfStreams != int(streams) || *d.PlatformDefaultPD != int64(platform) || *d.OSDefaultPD != int64(os) ||
			*d.PrefetchDepth != want || *d.PrefetchOff != (want == 1) || d.PlatformDefaultPDName != "DPFD_X" {
			t.Fatalf("%q: %+v %v %v", in, d, n, err)
		}
	})
}

func FuzzParseClstrmgr(f *testing.F) {
	f.Add("Current state: ST_STABLE\nCLversion: 14\n", "ST_STABLE", uint16(14), uint16(7132))
	f.Fuzz(func(t *testing.T, s, state string, v, vrmf uint16) {
		checkAny(t, parseClstrmgr, s)
		if !word(state, "") {
			return
		}
		in := fmt.Sprintf("Current state: %s\nsccsid = \"@(#)36 1.1\"\nCLversion: %d\nlocal node vrmf is %d\n", state, v, vrmf)
		h, _, err := parseClstrmgr(in)
		if err != nil || !h.Installed || h.State != state || *h.CLVersion != int(v) || h.VRMF != fmt.Sprint(vrmf) || h.ClusterNode != (state != "NOT_CONFIGURED") {
			t.Fatalf("%q: %+v %v", in, h, err)
		}
	})
}

func FuzzParseRestricted(f *testing.F) {
	f.Add("  maxfree = 1088\n##Restricted tunables\n  lru_file_repage = 0\n", "minperm%", int64(3))
	f.Fuzz(func(t *testing.T, s, name string, v int64) {
		checkAny(t, parseRestricted, s)
		if !word(name, "=#") {
			return
		}
		m, _, err := parseRestricted(fmt.Sprintf("%30s = 1\n##Restricted tunables\n%30s = %d\n", "zz_before", name, v))
		if err != nil || len(m) != 1 || m[name].Kind != "number" || *m[name].Number != v {
			t.Fatalf("%s = %d: %+v %v", name, v, m, err)
		}
	})
}
