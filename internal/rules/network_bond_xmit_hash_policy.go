package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// network.bond-xmit-hash-policy: 000 bonds four NICs in mode 4 (802.3ad)
// with xmit_hash_policy 1 (layer3+4) so connections spread over the links by
// IP and port (Table 5/13).
func init() {
	Register(Rule{
		ID:       "network.bond-xmit-hash-policy",
		Area:     AreaNetwork,
		Severity: SevWarning,
		Title:    "Bond transmit hash does not use ports (layer3+4)",
		Sources: []Source{
			{Doc: Seed000, Section: "Bonded NICs & Bond xmit_hash_policy",
				Quote: "used the Level 3 and Level 4 protocol header information (IP & UDP/TCP port numbers)"},
			{Doc: Seed000, Section: "Use of bonded NICs",
				Quote: "Any one connection will only use one NIC as determined by the xmit_hash_policy of the bond configuration"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "Bond xmit_hash_policy\t1"},
		},
		Scope: Scope{Kernels: "all (bonding driver)", Distros: "all",
			Note: "802.3ad (mode 4) and balance-xor (mode 2) bonds; other modes do not hash"},
		Check: checkBondHash,
	})
}

const bondWhy = "spread connections to one peer over every slave"

func checkBondHash(in *Input) Outcome {
	if why := in.netAbsent(); why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var ok, cannot []string
	var wants []change.Change
	bonds := 0
	for _, it := range in.Snap.Network.Interfaces {
		if it.Kind != "bond" {
			continue
		}
		bonds++
		fact := "network.interfaces[" + it.Name + "].bond"
		if it.Bond == nil || it.Bond.Mode == "" {
			cannot = append(cannot, in.Reason(fact+".mode", "bonding mode not read"))
			continue
		}
		mode, modeNum, err := parseBondValue(it.Bond.Mode)
		if err != nil {
			cannot = append(cannot, fmt.Sprintf("%s.mode: %v", fact, err))
			continue
		}
		if mode != "802.3ad" && mode != "balance-xor" && modeNum != 4 && modeNum != 2 {
			ok = append(ok, fmt.Sprintf("%s mode %s (no hashing)", it.Name, mode))
			continue
		}
		if it.Bond.XmitHashPolicy == "" {
			cannot = append(cannot, in.Reason(fact+".xmit_hash_policy", "not read"))
			continue
		}
		pol, _, err := parseBondValue(it.Bond.XmitHashPolicy)
		if err != nil {
			cannot = append(cannot, fmt.Sprintf("%s.xmit_hash_policy: %v", fact, err))
			continue
		}
		p := "/sys/class/net/" + it.Name + "/bonding/xmit_hash_policy"
		if pol == "layer3+4" || pol == "encap3+4" {
			ok = append(ok, fmt.Sprintf("%s %s %s", it.Name, mode, pol))
			wants = append(wants, SysfsChange("network.bond-xmit-hash-policy", p, "layer3+4", pol, bondWhy))
			continue
		}
		fs = append(fs, Finding{
			Setting:     p,
			Current:     it.Bond.XmitHashPolicy,
			Recommended: "layer3+4 1",
			Evidence:    fmt.Sprintf("%s = %s; /sys/class/net/%s/bonding/mode = %s; slaves %s", p, it.Bond.XmitHashPolicy, it.Name, it.Bond.Mode, strings.Join(it.Bond.Slaves, ",")),
			Why: "000: \"Any one connection will only use one NIC as determined by the xmit_hash_policy\"; with " + pol + " all traffic to one " +
				"peer (or to every client behind one router) takes the same slave. 000's layer3+4 4-port bond reached 36.4-40 Gb/s with 15-60 " +
				"streams versus 9.5 Gb/s in the low-performance configuration.",
			Fix: Fix{
				Runtime:    []string{echoTo("layer3+4", p)},
				Persistent: append([]string{}, NMCLIModify(in.Snap, it.Name, "+bond.options xmit_hash_policy=layer3+4", "")...),
				Edits:      IfcfgEdits(in.Snap, it.Name, fmt.Sprintf("BONDING_OPTS=\"mode=%s xmit_hash_policy=layer3+4 ...\"", mode)),
			},
			Changes: []change.Change{SysfsChange("network.bond-xmit-hash-policy", p, "layer3+4", pol, bondWhy)},
			Risk: "Transmit only; the switch's own hash decides inbound spreading (set its port-channel to src-dst-ip-port too). The kernel notes " +
				"layer3+4 is not fully 802.3ad compliant (fragments of one flow can take different links).",
		})
	}
	if len(fs) > 0 {
		return Found(fs...).Wanting(wants...)
	}
	if bonds == 0 {
		return NotApplicable("no bonded interface")
	}
	if len(ok) == 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	return Passed("%s", strings.Join(ok, "; ")).Wanting(wants...).Reading("/proc/net/bonding: " + strings.Join(ok, "; "))
}
