package facts

import (
	"strings"
)

func readTuned(c *Collector) {
	t := &c.Snap.Config.Tuned
	t.Installed = c.Root.Exists("/etc/tuned") || c.Root.Exists("/usr/lib/tuned")
	if !t.Installed {
		c.AbsentReason("config.tuned.active_profile", "/etc/tuned/active_profile", "tuned is not installed")
		return
	}
	b, err := c.Root.ReadFile("/etc/tuned/active_profile")
	if err != nil {
		c.Absent("config.tuned.active_profile", "/etc/tuned/active_profile", err)
	} else {
		s := strings.TrimSpace(string(b))
		t.ActiveProfile = &s
	}
	t.ProfileMode = c.StringQuiet("/etc/tuned/profile_mode")
}
