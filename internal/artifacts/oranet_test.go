package artifacts

import (
	"strings"
	"testing"
)

func TestParseListenerOra(t *testing.T) {
	b := readTestdata(t, "listener.ora")
	if k := Recognize(b); k != KindListener {
		t.Fatalf("Recognize = %q", k)
	}
	c, errs := ParseNet(b)
	noErrors(t, errs)
	wantOrder := "LISTENER LISTENER_SCAN1 SID_LIST_LISTENER CONNECTION_RATE_LISTENER ENABLE_GLOBAL_DYNAMIC_ENDPOINT_LISTENER_SCAN1 " +
		"VALID_NODE_CHECKING_REGISTRATION_LISTENER ADR_BASE_LISTENER INBOUND_CONNECT_TIMEOUT_LISTENER"
	if got := strings.Join(c.Order, " "); got != wantOrder {
		t.Errorf("order = %s", got)
	}
	if got := strings.Join(c.Listeners(), " "); got != "LISTENER LISTENER_SCAN1" {
		t.Errorf("listeners = %s", got)
	}
	ad := c.Addresses("listener")
	if len(ad) != 2 {
		t.Fatalf("addresses = %+v", ad)
	}
	if a := ad[0]; a.Protocol != "TCP" || a.Host != "racnode1-vip.example.com" || a.Port != "1521" || a.RateLimit != "10" || a.Line != 9 {
		t.Errorf("address 0 = %+v", a)
	}
	if a := ad[1]; a.Protocol != "IPC" || a.Key != "EXTPROC1521" || a.Host != "" {
		t.Errorf("address 1 = %+v", a)
	}
	rl := c.RateLimits("Listener")
	if len(rl) != 3 {
		t.Fatalf("rate limits = %+v", rl)
	}
	if rl[0].Value != "yes" || rl[0].Line != 7 || rl[0].Path != "LISTENER/DESCRIPTION_LIST/DESCRIPTION/RATE_LIMIT" {
		t.Errorf("rate limit 0 = %+v", rl[0])
	}
	if rl[2].Key != "CONNECTION_RATE_LISTENER" || rl[2].Value != "10" || rl[2].Line != 26 {
		t.Errorf("rate limit 2 = %+v", rl[2])
	}
	if len(c.RateLimits("LISTENER_SCAN1")) != 0 {
		t.Error("the SCAN listener has no rate limit")
	}
	if crs, ev := c.CRSManaged(); !crs || ev != "SCAN listener entry LISTENER_SCAN1" {
		t.Errorf("CRSManaged = %v %q", crs, ev)
	}
	if q := c.QueueSizes("LISTENER"); len(q) != 1 || q[0].Value != "1024" {
		t.Errorf("queuesize = %+v", q)
	}
	if v, ok := c.Param("adr_base_listener"); !ok || v != "/u01/app/oracle" {
		t.Errorf("ADR_BASE_LISTENER = %q %v", v, ok)
	}
	if _, ok := c.Param("LISTENER"); ok {
		t.Error("a tree entry is not a simple parameter")
	}
	envs := c.Entry("SID_LIST_LISTENER").Find("ENVS")
	if len(envs) != 1 || envs[0].Value != "LD_LIBRARY_PATH=/u01/app/oracle/product/12.1.0/dbhome_1/lib(64)" {
		t.Errorf("quoted ENVS = %+v", envs)
	}
	if sd := c.Entry("SID_LIST_LISTENER").Child("SID_LIST").Child("sid_desc").Child("SID_NAME"); sd == nil || sd.Value != "BDT12c1_1" {
		t.Errorf("SID_NAME = %+v", sd)
	}
}

func TestParseTNSNames(t *testing.T) {
	b := readTestdata(t, "tnsnames.ora")
	if k := Recognize(b); k != KindTNSNames {
		t.Fatalf("Recognize = %q", k)
	}
	c, errs := ParseNet(b)
	noErrors(t, errs)
	if c.Entry("BDT_PREF") == nil || c.Entry("bdt_pref.world") != c.Entry("BDT_PREF") {
		t.Fatal("alias list must share one node")
	}
	if ad := c.Addresses("BDT_PREF"); len(ad) != 2 || ad[1].Port != "1522" {
		t.Errorf("addresses = %+v", ad)
	}
	if lb := c.LoadBalance("BDT_PREF"); len(lb) != 1 || lb[0].Value != "on" {
		t.Errorf("load balance = %+v", lb)
	}
	fm := c.Entry("BDT_PREF").Find("FAILOVER_MODE")
	if len(fm) != 1 || fm[0].Child("retries").Value != "180" {
		t.Errorf("failover mode = %+v", fm)
	}
	if crs, _ := c.CRSManaged(); crs {
		t.Error("a plain tnsnames.ora is not CRS-managed")
	}
	if ad := c.Addresses("ORCL"); len(ad) != 1 || ad[0].Host != "db1" {
		t.Errorf("orcl = %+v", ad)
	}
}

func TestParseNetErrors(t *testing.T) {
	in := "GOOD1 = (ADDRESS = (PORT = 1))\n" +
		"BROKEN =\n  (DESCRIPTION =\n    (ADDRESS = (PORT = 1521)\n" + // missing ')' x2 → error, skip to next column-1 line
		"GOOD2 = value\n" +
		"junk line without equals\n" +
		"(stray = 1)\n" +
		"DEEP = " + strings.Repeat("(A = ", 100) + "1" + strings.Repeat(")", 100) + "\n" +
		"GOOD3 = (X = 1)\n"
	c, errs := ParseNet([]byte(in))
	// "(stray = 1)" is indented-or-parenthesised text after a broken entry: skipped with it.
	if len(errs) != 3 {
		t.Fatalf("errors = %v", errs)
	}
	for i, want := range []string{"line 4:", "line 6:", "line 8:"} {
		if !strings.Contains(errs[i].Error(), want) {
			t.Errorf("error %d = %v, want %s", i, errs[i], want)
		}
	}
	if got := strings.Join(c.Order, " "); got != "GOOD1 GOOD2 GOOD3" {
		t.Errorf("entries kept = %s", got)
	}
}

func FuzzParseNet(f *testing.F) {
	f.Add([]byte("L = (DESCRIPTION = (ADDRESS = (PROTOCOL = TCP)(HOST = h)(PORT = 1521)))\nCONNECTION_RATE_L = 5\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, _ := ParseNet(b)
		if c == nil {
			t.Fatal("nil result")
		}
		if len(c.Order) != len(c.Entries) {
			t.Fatalf("order %d entries %d", len(c.Order), len(c.Entries))
		}
		for _, n := range c.Order {
			c.Addresses(n)
			c.RateLimits(n)
			c.LoadBalance(n)
		}
		c.Listeners()
	})
}
