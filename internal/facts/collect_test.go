package facts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestReadersNameSnapshotFacts: every reader names the parts of the
// snapshot it fills by their JSON names ("cpu_power", "config.tuned.profile"),
// the names rules ask AbsentReason about, so that a panic in it is an
// absence a rule notices.
func TestReadersNameSnapshotFacts(t *testing.T) {
	top := map[string]bool{}
	st := reflect.TypeOf(snapshot.Snapshot{})
	for i := 0; i < st.NumField(); i++ {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		top[name] = true
	}
	if len(readers) == 0 {
		t.Fatal("no readers registered")
	}
	for _, r := range readers {
		for _, f := range r.facts {
			section, _, _ := strings.Cut(f, ".")
			if !top[section] || section == "absent" || section == "source" {
				t.Errorf("reader %s names %q: not a part of the snapshot", r.name, f)
			}
		}
	}
}
