package snapshot

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestSchemaDocumented fails when a JSON field of the Snapshot is missing from
// docs/snapshot.md, so the schema document cannot fall behind the types.
func TestSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/snapshot.md")
	if err != nil {
		t.Fatal(err)
	}
	// The doc writes list elements as nodes[].id; compare without the brackets.
	text := strings.ReplaceAll(string(doc), "[]", "")
	var missing []string
	var walk func(tp reflect.Type, prefix string, seen map[reflect.Type]bool)
	walk = func(tp reflect.Type, prefix string, seen map[reflect.Type]bool) {
		for tp.Kind() == reflect.Pointer || tp.Kind() == reflect.Slice || tp.Kind() == reflect.Map {
			tp = tp.Elem()
		}
		if tp.Kind() != reflect.Struct || seen[tp] || tp.PkgPath() != reflect.TypeOf(Snapshot{}).PkgPath() {
			return
		}
		seen[tp] = true
		for i := 0; i < tp.NumField(); i++ {
			f := tp.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			if name == "" || name == "-" {
				continue
			}
			// A field is documented when its name appears in backquotes,
			// either as its full dotted path or (in a table of a section) alone.
			if !strings.Contains(text, "`"+prefix+name+"`") && !strings.Contains(text, "`"+name+"`") &&
				!strings.Contains(text, ", "+name+"`") && !strings.Contains(text, "`"+name+"`,") {
				missing = append(missing, prefix+name)
			}
			walk(f.Type, prefix+name+".", seen)
		}
	}
	walk(reflect.TypeOf(Snapshot{}), "", map[reflect.Type]bool{})
	if len(missing) > 0 {
		t.Errorf("docs/snapshot.md does not document: %s", strings.Join(missing, ", "))
	}
}

// A snapshot of the current schema version with fields a newer dbhost
// added (adding a field keeps the version) is read, with a note naming the
// fields and the dbhost that wrote them: a fleet mid-upgrade still audits.
func TestParseNewerFieldsReadWithNote(t *testing.T) {
	in := fmt.Sprintf(`{"schema_version": %d, "source": {"kind": "live", "collector": "v9.0.0", "root": true, "tier": 2},
	  "host": {"hostname": "db1", "kernel": "6.1", "os": "", "cmdline": "", "cmdline_args": null, "virt": {"hypervisor": false, "guest": false}, "new_fact": {"a": 1}},
	  "sysctl": {"vm.swappiness": "10"},
	  "topology": {"nodes": [{"id": 0, "future_kind": "dram"}, {"id": 1, "future_kind": "cxl"}]},
	  "quantum": [1, 2]}`, SchemaVersion)
	s, err := Parse("new.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if s.Host.Hostname != "db1" || s.Sysctl["vm.swappiness"] != "10" {
		t.Errorf("known fields not read: %+v %v", s.Host, s.Sysctl)
	}
	if len(s.Absent) != 1 {
		t.Fatalf("absent = %+v, want one note", s.Absent)
	}
	a := s.Absent[0]
	want := "written by dbhost v9.0.0: 4 field(s) this dbhost does not know were not read (host.new_fact, quantum, source.tier, topology.nodes[].future_kind)"
	if a.Fact != "snapshot.fields" || a.Path != "new.json" || !strings.HasPrefix(a.Reason, want) {
		t.Errorf("note = %+v\nwant reason %q", a, want)
	}
	// A field of the wrong type is still an error, not a note.
	if _, err := Parse("x.json", []byte(fmt.Sprintf(`{"schema_version": %d, "host": {"hostname": 7}, "extra": 1}`, SchemaVersion))); err == nil {
		t.Error("a retyped field was read")
	}
}

// An unknown field in an older version's snapshot (no newer dbhost writes
// one) is reported with its line, like syntax errors.
func TestParseUnknownFieldLine(t *testing.T) {
	_, err := Parse("x.json", []byte("{\n  \"schema_version\": 1,\n  \"bogus\": 2\n}\n"))
	if err == nil || !strings.Contains(err.Error(), "x.json: invalid snapshot: line 3:") || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("err = %v", err)
	}
}

// A key written twice (encoding/json would keep the last) is refused with
// its line; keys of a map that differ in case are two keys.
func TestParseDuplicateKey(t *testing.T) {
	in := "{\n  \"schema_version\": 3,\n  \"sysctl\": {\"vm.swappiness\": \"1\",\n  \"vm.swappiness\": \"60\"}\n}\n"
	_, err := Parse("x.json", []byte(in))
	if err == nil || !strings.Contains(err.Error(), `x.json: invalid snapshot: line 4: duplicate key "vm.swappiness" in sysctl (first on line 3)`) {
		t.Errorf("err = %v", err)
	}
	if _, err := Parse("x.json", []byte(`{"schema_version": 3, "sysctl": {"a.B": "1", "a.b": "2"}}`)); err != nil {
		t.Errorf("keys differing in case: %v", err)
	}
}

// A version 1 snapshot (residency_us and disabled never null) is read and
// comes back as the current version; a newer one is refused.
func TestParseUpgradesVersion1(t *testing.T) {
	v1 := `{"schema_version": 1, "cpu_power": {"cpuidle_driver": "intel_idle", "cpufreq": null, "cpuidle": [{"cpu": 0, "states": [{"index": 2, "name": "C6", "latency_us": 133, "residency_us": 600, "disabled": true}]}]}}`
	s, err := Parse("v1.json", []byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	st := s.CPUPower.Cpuidle[0].States[0]
	if s.SchemaVersion != SchemaVersion || st.ResidencyUS == nil || *st.ResidencyUS != 600 || !st.Off() {
		t.Errorf("upgraded = %+v %+v", s.SchemaVersion, st)
	}
	if _, err := Parse("v4.json", []byte(`{"schema_version": 4}`)); err == nil || !strings.Contains(err.Error(), "reads versions 1 to 3") {
		t.Errorf("v4: %v", err)
	}
	if _, err := Parse("v4.json", []byte(`{"schema_version": 4, "source": {"collector": "v2.0.0"}}`)); err == nil || !strings.Contains(err.Error(), "written by dbhost v2.0.0, a newer format") {
		t.Errorf("v4 with its collector: %v", err)
	}
	// A version 2 snapshot has no databases[]; it is read and upgraded.
	s, err = Parse("v2.json", []byte(`{"schema_version": 2, "host": {"hostname": "db1", "kernel": "", "os": "", "cmdline": "", "cmdline_args": null, "virt": {"hypervisor": false, "guest": false}}}`))
	if err != nil || s.SchemaVersion != SchemaVersion || s.Host.Hostname != "db1" || s.Databases != nil {
		t.Errorf("v2: %+v, %v", s, err)
	}
}
