package facts

import (
	"strings"
)

// legacyTuned reports RHEL 6's tuned 0.2: /etc/tune-profiles and no tuned 2.x directory.
func legacyTuned(c *Collector) bool {
	return !c.Root.Exists("/etc/tuned") && !c.Root.Exists("/usr/lib/tuned") && c.Root.Exists("/etc/tune-profiles")
}

// readTuned reads tuned's active profile: tuned 2.x keeps it in
// /etc/tuned/active_profile, RHEL 6's tuned 0.2 in
// /etc/tune-profiles/active-profile.
func readTuned(c *Collector) {
	t := &c.Snap.Config.Tuned
	if legacyTuned(c) {
		t.Installed = true
		t.V02 = true
		const p = "/etc/tune-profiles/active-profile"
		if s, err := c.Root.ReadString(p); err != nil {
			c.Absent("config.tuned.active_profile", p, err)
		} else {
			t.ActiveProfile = &s
		}
		return
	}
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
