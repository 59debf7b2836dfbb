package hostsrc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/exporter"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/facts/aix"
	"github.com/dbhost/dbhost/internal/input"
	"github.com/dbhost/dbhost/internal/libvirt"
	"github.com/dbhost/dbhost/internal/place"
)

// thousands writes n as the table does: 100,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestLimitsDocumented keeps docs/limits.md's table in step with the
// limits in the code: each row, found by its input's words, names the
// limit's value.
func TestLimitsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "limits.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| input") {
			rows = append(rows, l)
		}
	}
	for _, c := range []struct {
		row   string // words of the row's first cell
		limit string
	}{
		{"`--snapshot` file", confine.Bytes(input.SnapshotBytes)},
		{"`--snapshot` glob", "100,000"},
		{"`--plan`", confine.Bytes(input.PlanBytes)},
		{"`place --spec` file", confine.Bytes(input.SpecBytes)},
		{"`place --spec`: YAML once comments", confine.Bytes(place.MaxSpecYAMLBytes)},
		{"`place --spec`: nesting depth", thousands(place.MaxSpecDepth)},
		{"`place --spec`: YAML nodes", thousands(place.MaxSpecNodes)},
		{"`place --spec`: instances", thousands(place.MaxInstances)},
		{"apply journal", confine.Bytes(input.JournalBytes)},
		{"bytes decompressed", confine.Bytes(sosMaxUnpacked)},
		{"LZMA2 dictionary", confine.Bytes(sosMaxDict)},
		{"bytes unpacked to disk", confine.Bytes(sosMaxTotal)},
		{"one member", confine.Bytes(sosMaxFile)},
		{"entries listed", group(sosMaxEntries)},
		{"a member's name", group(sosMaxName) + " bytes"},
		{"a member's depth", strconv.Itoa(sosMaxDepth) + " directories"},
		{"one host file", confine.Bytes(facts.MaxFileBytes)},
		{"rows kept of one table", group(artifacts.AWRMaxRows)},
		{"events of a top list", strconv.Itoa(artifacts.AWRMaxTop)},
		{"`--aix-bundle`: one command output", confine.Bytes(aixMaxFile)},
		{"`--aix-bundle`: all command output", confine.Bytes(aixMaxTotal)},
		{"`--aix-bundle` archive: size once decompressed", confine.Bytes(aixMaxUnpacked)},
		{"`--aix-bundle`: archive entries", "100,000"},
		{"AIX host: one command's output", confine.Bytes(aixMaxFile)},
		{"AIX host: all command output", confine.Bytes(aixMaxTotal)},
		{"AIX host: one command's run time", strconv.Itoa(int(aix.CommandTimeout/time.Second)) + " s"},
		{"libvirt domain XML: one definition", confine.Bytes(libvirt.MaxXML)},
		{"`dbhost exporter`: connections open at once", strconv.Itoa(exporter.DefaultLimits.MaxConns)},
		{"`dbhost exporter`: a new connection's request headers", secs(exporter.DefaultLimits.ReadHeaderTimeout)},
		{"`dbhost exporter`: one whole request", secs(exporter.DefaultLimits.ReadTimeout)},
		{"`dbhost exporter`: one response", secs(exporter.DefaultLimits.WriteTimeout)},
		{"`dbhost exporter`: a kept-alive connection idle", secs(exporter.DefaultLimits.IdleTimeout)},
	} {
		found := false
		for _, r := range rows {
			cells := strings.Split(r, "|")
			if len(cells) > 3 && strings.Contains(cells[1], c.row) {
				found = true
				if strings.TrimSpace(cells[2]) != c.limit {
					t.Errorf("docs/limits.md: %q says %q; the code's limit is %s", c.row, strings.TrimSpace(cells[2]), c.limit)
				}
			}
		}
		if !found {
			t.Errorf("docs/limits.md has no row for %q (limit %s)", c.row, c.limit)
		}
	}
	if snapshotFiles != 100000 {
		t.Errorf("snapshotFiles is %d; docs/limits.md says 100,000", snapshotFiles)
	}
	if aixMaxEntries != 100000 {
		t.Errorf("aixMaxEntries is %d; docs/limits.md says 100,000", aixMaxEntries)
	}
	if sosMaxEntries != 500000 {
		t.Errorf("sosMaxEntries is %d; docs/limits.md says 500,000", sosMaxEntries)
	}
}

// secs formats a duration the way docs/limits.md writes it: "300 s".
func secs(d time.Duration) string { return strconv.Itoa(int(d/time.Second)) + " s" }
