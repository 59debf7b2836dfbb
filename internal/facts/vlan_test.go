package facts

import (
	"reflect"
	"testing"
)

func TestParseVlanConfig(t *testing.T) {
	m, err := parseVlanConfig("VLAN Dev name\t | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\neth0.100       | 100  | eth0\nvlan7 | 7 | bond0\n")
	if err != nil || !reflect.DeepEqual(m, map[string]string{"eth0.100": "eth0", "vlan7": "bond0"}) {
		t.Errorf("got %v %v", m, err)
	}
	for _, in := range []string{"eth0.1 | 1\n", "eth0.1 | x | eth0\n", "eth0.1 | 5000 | eth0\n", " | 1 | eth0\n"} {
		if _, err := parseVlanConfig(in); err == nil {
			t.Errorf("parseVlanConfig(%q) succeeded", in)
		}
	}
}

func FuzzParseVlanConfig(f *testing.F) {
	f.Add("VLAN Dev name\t | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\neth0.100       | 100  | eth0\n")
	f.Fuzz(func(t *testing.T, in string) {
		m, err := parseVlanConfig(in)
		if err != nil {
			return
		}
		for dev, parent := range m {
			if dev == "" || parent == "" {
				t.Fatalf("empty name in %v", m)
			}
		}
	})
}
