package artifacts

import (
	"strings"
	"testing"
)

func TestParseSrvctl(t *testing.T) {
	b := readTestdata(t, "srvctl_config_service.txt")
	if k := Recognize(b); k != KindSrvctl {
		t.Fatalf("Recognize = %q", k)
	}
	sv, errs := ParseSrvctl(b)
	noErrors(t, errs)
	if len(sv) != 2 {
		t.Fatalf("services = %d", len(sv))
	}
	p, both := sv[0], sv[1]
	if p.Name != "BDT_PREF" || p.Line != 2 || strings.Join(p.Preferred, ",") != "BDT12c1_1" || strings.Join(p.Available, ",") != "BDT12c1_2" ||
		p.ServerPool != "BDT12c1_BDT_PREF" || p.Cardinality != "1" || bp(p.Enabled) != "true" || p.Fields["Retention"] != "86400 seconds" {
		t.Errorf("BDT_PREF = %+v", p)
	}
	if v, ok := p.Fields["Failover type"]; !ok || v != "" {
		t.Errorf("empty field kept: %q %v", v, ok)
	}
	if both.Name != "BDT_BOTH" || strings.Join(both.Preferred, ",") != "BDT12c1_1,BDT12c1_2" || len(both.Available) != 0 || bp(both.Enabled) != "false" {
		t.Errorf("BDT_BOTH = %+v", both)
	}
}

func TestParseSrvctlErrors(t *testing.T) {
	in := "PRKO-2002 : Invalid command line option\nService name: A\nPreferred instances: i1\ngarbage here\nService name:\nPreferred instances: x\n"
	sv, errs := ParseSrvctl([]byte(in))
	if len(sv) != 1 || strings.Join(sv[0].Preferred, ",") != "i1" {
		t.Fatalf("services = %+v", sv)
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "line 4:") || !strings.Contains(errs[1].Error(), "line 5:") {
		t.Errorf("errors = %v", errs)
	}
}

func FuzzParseSrvctl(f *testing.F) {
	f.Add([]byte("Service name: S\nPreferred instances: a,b\nAvailable instances: c\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		sv, _ := ParseSrvctl(b)
		for _, s := range sv {
			if s.Name == "" || s.Line < 1 || s.Preferred == nil || s.Available == nil {
				t.Fatalf("service %+v", s)
			}
		}
	})
}
