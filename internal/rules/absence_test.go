package rules

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestAbsenceIsNoEvidence is the engine-level form of "no verdict without
// evidence" (issue 25): over every fixture snapshot, each part of the
// snapshot in turn is removed and recorded absent, as a reader that could
// not read it leaves it. No rule may then raise a finding above info that
// it did not raise with the part present (same rule, same setting, at
// least the same severity): an absent fact is never evidence. And a
// snapshot where every part is absent raises nothing above info.
func TestAbsenceIsNoEvidence(t *testing.T) {
	for name, full := range goldenSnapshots(t) {
		db, _ := DetectDB(full, nil)
		if db == "" {
			db = DBNone
		}
		base := aboveInfo(Run(&Input{Snap: full, Workload: WorkloadOLTP, DB: db}))
		raw, err := json.Marshal(full)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range snapshotParts(t, raw) {
			reduced := withoutPart(t, raw, path)
			got := aboveInfo(Run(&Input{Snap: reduced, Workload: WorkloadOLTP, DB: db}))
			for k, sev := range got {
				if was, ok := base[k]; !ok || SeverityRank(was) < SeverityRank(sev) {
					t.Errorf("%s without %s: %s is %s (with it: %q)", name, path, k, sev, was)
				}
			}
		}
	}
}

// aboveInfo maps each rule to the highest severity of its findings above
// info. By rule, not by setting: a rule may name another setting when a
// fact it would choose the fix by is absent.
func aboveInfo(r Report) map[string]string {
	out := map[string]string{}
	for _, f := range r.Findings {
		if SeverityRank(f.Severity) > SeverityRank(SevInfo) && SeverityRank(f.Severity) > SeverityRank(out[f.ID]) {
			out[f.ID] = f.Severity
		}
	}
	return out
}

// snapshotParts lists the snapshot's sections and their fields ("topology",
// "topology.nodes", "memory.thp", ...), the facts a reader records absent.
func snapshotParts(t *testing.T, raw []byte) []string {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	for k, v := range m {
		switch k {
		case "schema", "schema_version", "collector", "collected_at", "source", "absent", "host":
			continue
		}
		out = append(out, k)
		if sub, ok := v.(map[string]any); ok {
			for f := range sub {
				out = append(out, k+"."+f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// withoutPart removes the part at path (a section or a field of one) and
// records it absent.
func withoutPart(t *testing.T, raw []byte, path string) *snapshot.Snapshot {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	sec, field, sub := strings.Cut(path, ".")
	if sub {
		if o, ok := m[sec].(map[string]any); ok {
			delete(o, field)
		}
	} else {
		delete(m, sec)
	}
	abs, _ := m["absent"].([]any)
	m["absent"] = append(abs, map[string]any{"fact": path, "path": "/test", "reason": "test: removed"})
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Parse(path, b)
	if err != nil {
		t.Fatalf("without %s: %v", path, err)
	}
	return s
}

func TestAbsenceIsNoEvidenceEmptySnapshot(t *testing.T) {
	for name, full := range goldenSnapshots(t) {
		raw, _ := json.Marshal(full)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		keep := map[string]any{}
		var abs []any
		for k, v := range m {
			switch k {
			case "schema", "schema_version", "collector", "collected_at", "source":
				keep[k] = v
			case "host", "absent":
			default:
				abs = append(abs, map[string]any{"fact": k, "path": "/test", "reason": "test: removed"})
			}
		}
		abs = append(abs, map[string]any{"fact": "host", "path": "/test", "reason": "test: removed"})
		keep["absent"] = abs
		b, _ := json.Marshal(keep)
		s, err := snapshot.Parse(name, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, w := range Workloads {
			for _, db := range DBs {
				for k, sev := range aboveInfo(Run(&Input{Snap: s, Workload: w, DB: db})) {
					t.Errorf("%s with every fact absent (%s, %s): %s is %s", name, w, db, k, sev)
				}
			}
		}
		break // the empty snapshot is the same for every host but its header
	}
}
