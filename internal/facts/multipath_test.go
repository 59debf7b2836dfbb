package facts

import (
	"reflect"
	"testing"
)

const multipathSample = `# device-mapper-multipath configuration
defaults {
    find_multipaths          yes
    user_friendly_names     yes   # comment
    polling_interval        10
}
blacklist {
    devnode "^(ram|raw|loop|fd|md|dm-|sr|scd|st)[0-9]*"
    device {
        vendor "DELL"
    }
}
devices {
    device {
        vendor                "3PARdata"
        product               "VV"
        path_selector         "round-robin 0"
        hardware_handler      "1 alua"
        no_path_retry        18
        rr_min_io_rq         1
    }
    device
    {
        vendor "NETAPP"
        rr_min_io_rq 100 ! old value
        rr_min_io_rq 1
    }
}
overrides { no_path_retry fail }
`

func TestParseMultipathConf(t *testing.T) {
	m, err := parseMultipathConf(multipathSample)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"defaults": {"find_multipaths": "yes", "user_friendly_names": "yes", "polling_interval": "10"},
		"devices[0]": {"vendor": "3PARdata", "product": "VV", "path_selector": "round-robin 0",
			"hardware_handler": "1 alua", "no_path_retry": "18", "rr_min_io_rq": "1"},
		"devices[1]": {"vendor": "NETAPP", "rr_min_io_rq": "1"},
		"overrides":  {"no_path_retry": "fail"},
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got  %v\nwant %v", m, want)
	}
}

func TestParseMultipathConfMalformed(t *testing.T) {
	for _, in := range []string{
		"defaults {\n  a 1\n",          // not closed
		"}\n",                          // close without open
		"defaults\n a 1\n",             // no brace after section name
		"user_friendly_names yes\n",    // key outside a section
		"defaults {\n vendor \"x\n}\n", // unterminated quote
		"a b {\n}\n",                   // two words before {
		"{\n}\n",                       // brace without a name
		"a {b {c {d {e {f {g {h {i {\n",
	} {
		if _, err := parseMultipathConf(in); err == nil {
			t.Errorf("parseMultipathConf(%q) succeeded", in)
		}
	}
	if m, err := parseMultipathConf("# only comments\n\n"); err != nil || len(m) != 0 {
		t.Errorf("empty conf: %v %v", m, err)
	}
}

func TestReadMultipathConf(t *testing.T) {
	s := newBTree(t).file("/etc/multipath.conf", multipathSample).collect(readBlock)
	if s.Storage.MultipathConf["devices[0]"]["rr_min_io_rq"] != "1" {
		t.Errorf("MultipathConf = %v", s.Storage.MultipathConf)
	}
	s = newBTree(t).mkdir("/sys/block").collect(readBlock)
	if s.Storage.MultipathConf != nil || len(s.Absent) != 0 {
		t.Errorf("no multipath.conf must be silent: %v %v", s.Storage.MultipathConf, s.Absent)
	}
	s = newBTree(t).mkdir("/sys/block").file("/etc/multipath.conf", "defaults {\n").collect(readBlock)
	if s.Storage.MultipathConf != nil || !hasAbsent(s, "storage.multipath_conf", "not closed") {
		t.Errorf("malformed multipath.conf: %v %v", s.Storage.MultipathConf, s.Absent)
	}
}

func FuzzParseMultipathConf(f *testing.F) {
	f.Add(multipathSample)
	f.Add("defaults\n{\n a \"b c\"\n}\n")
	f.Fuzz(func(t *testing.T, in string) {
		m, err := parseMultipathConf(in)
		if err != nil {
			return
		}
		for k := range m {
			if k != "defaults" && k != "overrides" && !(len(k) > 9 && k[:8] == "devices[") {
				t.Fatalf("unexpected section %q", k)
			}
		}
	})
}
