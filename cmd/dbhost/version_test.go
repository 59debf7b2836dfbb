package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	buildversion "github.com/dbhost/dbhost/internal/version"
)

// TestVersionEverywhere: `dbhost version`, --version, a snapshot's collector
// and the audit's dbhost_build_info name the same build (issue 31: nobody
// could tell which build produced a snapshot when every one said 0.1.0-dev).
func TestVersionEverywhere(t *testing.T) {
	want := buildversion.Get()
	call := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitOK && code != exitFindings {
			t.Fatalf("dbhost %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return out.String()
	}
	if got := call("version"); !strings.HasPrefix(got, "dbhost "+want.Version+"\n") || !strings.Contains(got, want.GoVersion) {
		t.Errorf("dbhost version:\n%s\nwant the version %q and the toolchain %q", got, want.Version, want.GoVersion)
	}
	var in buildversion.Info
	if err := json.Unmarshal([]byte(call("version", "--format", "json")), &in); err != nil || in != want {
		t.Errorf("dbhost version --format json = %+v (%v), want %+v", in, err, want)
	}
	if got := call("--version"); got != "dbhost version "+want.Version+"\n" {
		t.Errorf("dbhost --version = %q", got)
	}
	root := fixtureRoot("interleaved-4n")
	var snap struct {
		Source struct {
			Collector string `json:"collector"`
		} `json:"source"`
	}
	if err := json.Unmarshal([]byte(call("collect", "--root", root, "--format", "json")), &snap); err != nil || snap.Source.Collector != want.Version {
		t.Errorf("snapshot source.collector %q (%v), want %q", snap.Source.Collector, err, want.Version)
	}
	prom := call("audit", "--root", root, "--format", "prometheus")
	if line := `dbhost_build_info{goversion="` + want.GoVersion + `",revision="` + want.Revision + `",version="` + want.Version + `"} 1`; !strings.Contains(prom, line) {
		t.Errorf("audit --format prometheus lacks %s", line)
	}
}
