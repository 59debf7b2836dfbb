package aix

import (
	"os"
	"strings"
	"testing"
)

// dscrctl -q as AIX prints it: 7.1+ with the Data Streams Version line, the
// POWER7 guide's 6.1 form without it, prefetch off (dscrctl -n -b -s 1),
// the platform's default in force (os_default_pd 0), a warning line.
func TestParseDscrctl(t *testing.T) {
	for _, c := range []struct {
		name, in      string
		depth         int
		off           bool
		notes         int
		version, osNm string
	}{
		{"7.2, OS default", "Current DSCR settings:\n    Data Streams Version = V2.07\n    number_of_streams = 16\n    platform_default_pd = 0x5 (DPFD_DEEP)\n    os_default_pd = 0x0 (DPFD_DEFAULT)\n", 5, false, 0, "V2.07", "DPFD_DEFAULT"},
		{"6.1 guide form, CRLF", "Current DSCR settings:\r\nnumber_of_streams = 16\r\nplatform_default_pd = 0x5 (DPFD_DEEP)\r\nos_default_pd = 0xd (DSCR_SSE | DPFD_DEEP)\r\n", 5, false, 0, "", "DSCR_SSE | DPFD_DEEP"},
		{"prefetch off", "Current DSCR settings:\n    Data Streams Version = V2.06\n    number_of_streams = 12\n    platform_default_pd = 0x4 (DPFD_MEDIUM)\n    os_default_pd = 0x1 (DPFD_NONE)\n", 1, true, 0, "V2.06", "DPFD_NONE"},
		{"decimal, no names, garbage", "dscrctl: warning: something\nnumber_of_streams = 8\nplatform_default_pd = 1\nos_default_pd = 0\n", 1, true, 1, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, n, err := parseDscrctl(c.in)
			if err != nil || len(n) != c.notes || d.PrefetchDepth == nil || *d.PrefetchDepth != c.depth || *d.PrefetchOff != c.off ||
				d.StreamsVersion != c.version || d.OSDefaultPDName != c.osNm || d.NumberOfStreams == nil {
				t.Fatalf("%+v %v %v", d, n, err)
			}
		})
	}
	// os_default_pd missing: the depth in force is not known.
	d, _, err := parseDscrctl("number_of_streams = 16\nplatform_default_pd = 0x5 (DPFD_DEEP)\n")
	if err != nil || d.PrefetchDepth != nil || d.PrefetchOff != nil {
		t.Errorf("%+v %v", d, err)
	}
	// A platform without data streams prints an error, no setting.
	if _, _, err := parseDscrctl("dscrctl: Data Streams not supported on this platform.\n"); err == nil {
		t.Error("an error message read as dscrctl -q")
	}
	if _, n, err := parseDscrctl("number_of_streams = many\nos_default_pd = 0x1\n"); err != nil || len(n) != 1 || !strings.Contains(n[0].Error(), "number_of_streams") {
		t.Errorf("%v %v", n, err)
	}
}

func TestParseClstrmgr(t *testing.T) {
	for _, c := range []struct {
		name, in string
		inst     bool
		state    string
		node     bool
	}{
		{"not installed", "0513-085 The clstrmgrES Subsystem is not on file.\n", false, "", false},
		{"stable, PowerHA 7.1", "Current state: ST_STABLE\nsccsid = \"@(#)36 1.135\"\nCLversion: 14\nlocal node vrmf is 7132\ncluster fix level is \"2\"\n", true, "ST_STABLE", true},
		{"services stopped", "Current state: ST_INIT\r\nsccsid = \"x\"\r\n", true, "ST_INIT", true},
		{"no cluster defined", "Current state: NOT_CONFIGURED\nsccsid = \"x\"\n", true, "NOT_CONFIGURED", false},
		{"HACMP 5, subsystem stopped", "0513-036 The request could not be passed to the clstrmgrES subsystem.\n        Start the subsystem and try your command again.\n", true, "inoperative", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, _, err := parseClstrmgr(c.in)
			if err != nil || h.Installed != c.inst || h.State != c.state || h.ClusterNode != c.node {
				t.Fatalf("%+v %v", h, err)
			}
		})
	}
	if _, _, err := parseClstrmgr("lssrc: usage: lssrc [-h host] -a\n"); err == nil {
		t.Error("a usage message read as the cluster manager's status")
	}
}

func TestParseRestricted(t *testing.T) {
	in := "        maxfree = 1088\n##Restricted tunables\n   lru_file_repage = 0\n     maxperm% = 90\r\n garbage line\n"
	m, n, err := parseRestricted(in)
	if err != nil || len(m) != 2 || *m["lru_file_repage"].Number != 0 || len(n) != 1 || !strings.Contains(n[0].Error(), "line 5") {
		t.Fatalf("%v %v %v", m, n, err)
	}
	if _, ok := m["maxfree"]; ok {
		t.Error("a tunable before the marker read as restricted")
	}
	if m, _, err := parseRestricted("maxfree = 1088\n##Restricted tunables\n"); err != nil || m == nil || len(m) != 0 {
		t.Errorf("marker alone: %v %v", m, err)
	}
	if _, _, err := parseRestricted("maxfree = 1088\n"); err == nil {
		t.Error("vmo -a output read as vmo -F -a")
	}
}

// TestParseRestrictedIOO: ioo -F -a as AIX 7.2 prints it; aio_fsfastpath,
// a restricted tunable, is only after "##Restricted tunables".
func TestParseRestrictedIOO(t *testing.T) {
	b, err := os.ReadFile("testdata/bundles/aix72/commands/ioo_-F_-a")
	if err != nil {
		t.Fatal(err)
	}
	m, n, err := parseRestricted(string(b))
	if err != nil || len(n) != 0 {
		t.Fatalf("%v %v", err, n)
	}
	if v, ok := m["aio_fsfastpath"]; !ok || v.Number == nil || *v.Number != 1 {
		t.Errorf("aio_fsfastpath: %+v", m["aio_fsfastpath"])
	}
	if _, ok := m["aio_maxservers"]; ok {
		t.Error("aio_maxservers (ioo -a's, before the marker) read as restricted")
	}
}
