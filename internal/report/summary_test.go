package report

import (
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// A live server's settings in collect's summary: sizes in pg_settings' units as sizes.
func TestSettingText(t *testing.T) {
	for _, c := range []struct{ v, unit, want string }{
		{"4096", "8kB", "32.0 MiB"}, {"19", "", "19"}, {"512", "kB", "512 kB"}, {"4300", "MB", "4300.0 MiB"}, {"200", "ms", "200ms"}, {"x", "8kB", "x8kB"},
	} {
		v := c.v
		if got := settingText(&snapshot.DBSetting{Value: &v, Unit: c.unit}); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}
