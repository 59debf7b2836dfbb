package bench

import (
	"strings"
	"testing"
)

// A host snapshot handed to compare is named as such, with the command
// that compares snapshots (issue 31).
func TestParseResultHostSnapshot(t *testing.T) {
	snap := `{"schema_version": 3, "collected_at": "2026-11-28T00:00:00Z", "source": {"kind": "live"}, "topology": {"nodes": []}}`
	_, err := ParseResult("s.json", []byte(snap))
	if err == nil || !strings.Contains(err.Error(), "s.json: a host snapshot") || !strings.Contains(err.Error(), "dbhost diff A.json B.json") {
		t.Errorf("err = %v", err)
	}
	if _, err := ParseResult("r.json", []byte(`{"schema_version": 99, "bench": "numa"}`)); err == nil || strings.Contains(err.Error(), "host snapshot") {
		t.Errorf("a bench result of another version: %v", err)
	}
}
