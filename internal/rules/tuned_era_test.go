package rules

import (
	"strings"
	"testing"
)

// RHEL 6's tuned 0.2 (issue 26, item 5): 000 recommends "the latency-performance
// profile for RHEL6 and the network-latency profile on RHEL7". The rhel6
// fixture (RHEL 6.5, tuned 0.2 in /etc/tune-profiles, enterprise-storage
// active, tuned stopped) is told what exists there: latency-performance, the
// name in /etc/tune-profiles/active-profile, chkconfig, tuned-adm active;
// never network-latency, /etc/tuned/active_profile, tuned-adm verify,
// systemctl or nmcli -g.
func TestTunedV02FixesExistOnRHEL6(t *testing.T) {
	s, rep := auditFixture(t, "rhel6", WorkloadOLTP)
	if !TunedV02(s) {
		t.Fatal("rhel6 fixture: tuned 0.2 not recognised")
	}
	var all []string
	var tuned Finding
	for _, f := range rep.Findings {
		all = append(all, f.Recommended, f.Evidence)
		all = append(all, f.Fix.Runtime...)
		all = append(all, f.Fix.Persistent...)
		if f.ID == "cpu.tuned-profile" {
			tuned = f
		}
	}
	text := strings.Join(all, "\n")
	for _, bad := range []string{"network-latency", "/etc/tuned/active_profile", "tuned-adm verify", "systemctl", "nmcli -g", "sets [cpu]"} {
		if strings.Contains(text, bad) {
			t.Errorf("rhel6 (tuned 0.2) is told %q, which does not exist there:\n%s", bad, text)
		}
	}
	if tuned.ID == "" {
		t.Fatal("cpu.tuned-profile did not fire on enterprise-storage for OLTP")
	}
	if tuned.Recommended != "latency-performance" || !strings.HasPrefix(tuned.Evidence, "/etc/tune-profiles/active-profile: enterprise-storage") ||
		!strings.Contains(strings.Join(tuned.Fix.Runtime, "\n"), "tuned-adm active") ||
		!strings.Contains(strings.Join(tuned.Fix.Persistent, "\n"), "chkconfig tuned on") {
		t.Errorf("rhel6 tuned finding = %+v", tuned)
	}
	// RHEL 7 keeps 000's network-latency and tuned 2.x's verify.
	s7, rep7 := auditFixture(t, "rhel7", WorkloadLatency)
	if TunedV02(s7) {
		t.Fatal("rhel7 taken for tuned 0.2")
	}
	if c := TunedProfileForHost(s7, WorkloadLatency, DBNone); !strings.Contains(strings.Join(c.Fit, " "), "network-latency") {
		t.Errorf("rhel7 latency fit = %v", c.Fit)
	}
	_ = rep7
}

// A snapshot without the layout flag (an older capture) is known by its
// release: RHEL and its rebuilds 6 shipped only tuned 0.2.
func TestTunedV02FromRelease(t *testing.T) {
	s := host()
	s.Host.OSID, s.Host.OSVersionID = "centos", "6.10"
	if !TunedV02(s) {
		t.Error("CentOS 6.10 not taken for tuned 0.2")
	}
	c := TunedProfileForHost(s, WorkloadLatency, DBOracle)
	if c.Want != "latency-performance" || strings.Contains(strings.Join(c.Fit, " ")+c.Why, "network-latency built") {
		t.Errorf("CentOS 6 latency choice = %+v", c)
	}
	for _, p := range c.Fit {
		if !tuned02Profiles[p] {
			t.Errorf("CentOS 6: %s is not a tuned 0.2 profile", p)
		}
	}
	s.Host.OSID, s.Host.OSVersionID = "ol", "7.9"
	if TunedV02(s) {
		t.Error("Oracle Linux 7.9 taken for tuned 0.2")
	}
}
