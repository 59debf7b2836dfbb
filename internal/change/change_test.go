package change

import "testing"

func TestPaths(t *testing.T) {
	cases := map[Change]string{
		{Kind: Sysctl, Key: "vm.swappiness"}:                          "/proc/sys/vm/swappiness",
		{Kind: Sysctl, Key: "net.ipv4.conf.eth0/100.arp_filter"}:      "/proc/sys/net/ipv4/conf/eth0.100/arp_filter",
		{Kind: Sysfs, Key: "/sys/block/sda/queue/scheduler"}:          "/sys/block/sda/queue/scheduler",
		{Kind: BootArg, Key: "numa", Remove: true}:                    "",
		{Kind: Limit, Key: "oracle soft memlock", Value: "unlimited"}: "",
	}
	for c, want := range cases {
		if got := c.Path(); got != want {
			t.Errorf("%+v: Path() = %q, want %q", c, got, want)
		}
		if c.Runtime() != (want != "") {
			t.Errorf("%+v: Runtime() = %v", c, c.Runtime())
		}
	}
}
