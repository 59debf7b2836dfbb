package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestPkgInstall(t *testing.T) {
	for _, c := range []struct{ id, ver, want string }{
		{"rhel", "7.9", "yum install -y tuned"},
		{"ol", "7", "yum install -y tuned"},
		{"centos", "6.10", "yum install -y tuned"},
		{"rhel", "8.10", "dnf install -y tuned"},
		{"rhel", "9.4", "dnf install -y tuned"},
		{"ol", "9.3", "dnf install -y tuned"},
		{"rhel", "", "yum install -y tuned"}, // yum is dnf's alias from 8 on
		{"rocky", "9.2", "dnf install -y tuned"},
		{"amzn", "2", "yum install -y tuned"},
		{"amzn", "2023", "dnf install -y tuned"},
		{"sles", "15.5", "zypper install -y tuned"},
		{"ubuntu", "22.04", "apt-get install -y tuned"},
		{"debian", "12", "apt-get install -y tuned"},
		{"", "", "{ dnf install -y tuned || yum install -y tuned || zypper install -y tuned || apt-get install -y tuned; }"},
	} {
		if got := PkgInstall(snapshot.Host{OSID: c.id, OSVersionID: c.ver}, "tuned"); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.id, c.ver, got, c.want)
		}
	}
	s := host()
	if got := NMCLIModify(s, "ens1f0", "802-3-ethernet.mtu 9000", ""); len(got) != 1 || got[0] != `nmcli connection modify "$(nmcli -g GENERAL.CONNECTION device show ens1f0)" 802-3-ethernet.mtu 9000` {
		t.Errorf("%s", got)
	}
	// RHEL 6's NetworkManager 0.8 has neither connection modify nor -g.
	s.Host.OSID, s.Host.OSVersionID = "rhel", "6.5"
	if got := NMCLIModify(s, "eth0", "802-3-ethernet.mtu 9000", ""); got != nil {
		t.Errorf("RHEL 6: %q", got)
	}
}
