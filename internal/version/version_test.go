package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuild(t *testing.T) {
	set := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	rev := "3db4fa7c1e2b9d0f5a6b7c8d9e0f1a2b3c4d5e6f"
	for _, c := range []struct {
		name, stamp string
		bi          *debug.BuildInfo
		want        Info
	}{
		{"stamped release wins", "v1.2.0-3-g3db4fa7",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261128004512-3db4fa7c1e2b"},
				Settings: set("vcs.revision", rev, "vcs.modified", "false", "GOOS", "linux", "GOARCH", "arm64")},
			Info{Version: "v1.2.0-3-g3db4fa7", Revision: rev, GoVersion: "go1.26.8", Platform: "linux/arm64"}},
		{"go install @version", "",
			&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v1.2.0"}},
			Info{Version: "v1.2.0", GoVersion: "go1.26.1"}},
		{"checkout build, dirty (Go's pseudo-version)", "",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261128004512-3db4fa7c1e2b+dirty"},
				Settings: set("vcs.revision", rev, "vcs.modified", "true", "vcs.time", "2026-11-28T00:45:12Z")},
			Info{Version: "v0.0.0-20261128004512-3db4fa7c1e2b+dirty", Revision: rev, Dirty: true, Time: "2026-11-28T00:45:12Z", GoVersion: "go1.26.8"}},
		{"(devel) with a revision", "",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: set("vcs.revision", rev, "vcs.modified", "true")},
			Info{Version: "devel-3db4fa7c1e2b+dirty", Revision: rev, Dirty: true, GoVersion: "go1.26.8"}},
		{"no build information", "", nil, Info{Version: "devel"}},
		{"stamp with a newline", "v2.0.0\n", nil, Info{Version: "v2.0.0"}},
	} {
		got := fromBuild(c.stamp, c.bi)
		if c.want.GoVersion == "" {
			c.want.GoVersion = got.GoVersion // the test binary's own
		}
		if c.want.Platform == "" {
			c.want.Platform = got.Platform
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestGetNamesThisBuild(t *testing.T) {
	in := Get()
	if in.Version == "" || !strings.HasPrefix(in.GoVersion, "go") || !strings.Contains(in.Platform, "/") {
		t.Fatalf("Get() = %+v: a version, a Go version and a platform are always known", in)
	}
}
