package report

import (
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// auditJSONPaths walks the Go types of `dbhost audit --format json` from
// findingsDoc and returns every JSON field as a dotted path, a list element
// written with [] ("hosts[].findings[].fix.runtime").
func auditJSONPaths() []string {
	var paths []string
	var walk func(tp reflect.Type, prefix string, seen map[reflect.Type]bool)
	walk = func(tp reflect.Type, prefix string, seen map[reflect.Type]bool) {
		for tp.Kind() == reflect.Pointer {
			tp = tp.Elem()
		}
		if tp.Kind() != reflect.Struct || seen[tp] {
			return
		}
		seen[tp] = true
		defer delete(seen, tp)
		for i := 0; i < tp.NumField(); i++ {
			f := tp.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			name := strings.Split(tag, ",")[0]
			if f.Anonymous && name == "" {
				walk(f.Type, prefix, seen) // embedded: its fields are promoted
				continue
			}
			if name == "" {
				name = f.Name
			}
			path := prefix + name
			paths = append(paths, path)
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array || ft.Kind() == reflect.Map {
				if ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array {
					path += "[]"
				}
				ft = ft.Elem()
			}
			walk(ft, path+".", seen)
		}
	}
	walk(reflect.TypeOf(findingsDoc{}), "", map[reflect.Type]bool{})
	return paths
}

// docRow is a field row of docs/audit-json.md: its first cell is the
// field's full path in backquotes.
var docRow = regexp.MustCompile("(?m)^\\| `([a-z_]+(?:\\[\\])?(?:\\.[a-z_]+(?:\\[\\])?)*)` \\|")

// TestAuditJSONDocumented fails naming every JSON field of the audit
// document missing from docs/audit-json.md, and every path the page
// documents that the types no longer have: the page cannot fall behind
// the types, nor keep a field that is gone.
func TestAuditJSONDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/audit-json.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range docRow.FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = true
	}
	fields := map[string]bool{}
	var missing []string
	for _, p := range auditJSONPaths() {
		fields[p] = true
		if !documented[p] {
			missing = append(missing, p)
		}
	}
	var stale []string
	for p := range documented {
		if !fields[p] {
			stale = append(stale, p)
		}
	}
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("docs/audit-json.md does not document: %s", strings.Join(missing, ", "))
	}
	if len(stale) > 0 {
		t.Errorf("docs/audit-json.md documents fields the audit JSON no longer has: %s", strings.Join(stale, ", "))
	}
	// The walk itself must reach the nested objects, or the test proves nothing.
	for _, p := range []string{"schema_version", "hosts[].findings[].fix.runtime", "hosts[].findings[].fix.edits[].then",
		"hosts[].findings[].changes[].kind", "hosts[].passed[].evidence", "hosts[].servers_not_read[].connection"} {
		if !fields[p] {
			t.Errorf("the walk did not reach %s", p)
		}
	}
}
