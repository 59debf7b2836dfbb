// Package version says which build of dbhost is running, so that every
// snapshot, report and metric can name the build that made it.
//
// A release build stamps the version (git describe) with
//
//	-ldflags "-X github.com/dbhost/dbhost/internal/version.stamp=v1.2.3"
//
// Without a stamp, what the Go toolchain recorded in the binary is used: the
// module version of `go install github.com/dbhost/dbhost/cmd/dbhost@v1.2.3`,
// or, for a build in a checkout, the pseudo-version Go 1.24+ derives from the
// commit (with "+dirty" for uncommitted changes), and the commit itself.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// stamp is set at build time (see the package comment); empty otherwise.
var stamp string

// Info is one build's identity.
type Info struct {
	Version   string `json:"version"`            // what --version prints
	Revision  string `json:"revision,omitempty"` // the VCS commit, when recorded
	Dirty     bool   `json:"dirty,omitempty"`    // built from a tree with uncommitted changes
	Time      string `json:"time,omitempty"`     // the commit's time (RFC 3339), when recorded
	GoVersion string `json:"go"`                 // the toolchain that built it
	Platform  string `json:"platform"`           // GOOS/GOARCH
}

// Get returns this binary's Info (read once).
var Get = sync.OnceValue(func() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return fromBuild(stamp, bi)
})

// String is the version alone.
func String() string { return Get().Version }

// fromBuild computes an Info from a stamp and the binary's build
// information (nil when the binary has none, as under some test runners).
func fromBuild(stamp string, bi *debug.BuildInfo) Info {
	in := Info{Version: strings.TrimSpace(stamp), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		if bi.GoVersion != "" {
			in.GoVersion = bi.GoVersion
		}
		var goos, goarch string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.modified":
				in.Dirty = s.Value == "true"
			case "vcs.time":
				in.Time = s.Value
			case "GOOS":
				goos = s.Value
			case "GOARCH":
				goarch = s.Value
			}
		}
		if goos != "" && goarch != "" {
			in.Platform = goos + "/" + goarch
		}
		if in.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			in.Version = bi.Main.Version
		}
	}
	if in.Version == "" {
		// A build with no module version: name the commit when there is one.
		in.Version = "devel"
		if in.Revision != "" {
			in.Version += "-" + short(in.Revision)
			if in.Dirty {
				in.Version += "+dirty"
			}
		}
	}
	return in
}

func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
