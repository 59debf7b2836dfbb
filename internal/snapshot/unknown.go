package snapshot

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// unknownFields lists the object keys of a JSON document that the Go type t
// has no field for, as dotted paths ("host.new_thing", "numa.nodes[].x"),
// each path once, sorted. It follows encoding/json's rules closely enough
// for dbhost's own types: exported fields by their json tag or name (matched
// case-insensitively, as Unmarshal does), maps by their element type, slices
// and arrays by theirs; json.RawMessage and interface values take anything.
func unknownFields(b []byte, t reflect.Type) []string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	seen := map[string]bool{}
	walkUnknown(v, t, "", seen, 0)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

func walkUnknown(v any, t reflect.Type, path string, seen map[string]bool, depth int) {
	if depth > 64 || len(seen) > 1000 {
		return // input.CheckKeys bounds the depth already; this is a backstop
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessage || t.Kind() == reflect.Interface {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		switch t.Kind() {
		case reflect.Struct:
			fields := structFields(t)
			for k, sub := range x {
				ft, ok := fields[strings.ToLower(k)]
				p := join(path, k)
				if !ok {
					seen[p] = true
					continue
				}
				walkUnknown(sub, ft, p, seen, depth+1)
			}
		case reflect.Map:
			for k, sub := range x {
				_ = k // keys are data (sysctl names, interfaces): the path names the map
				walkUnknown(sub, t.Elem(), path+".*", seen, depth+1)
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for _, sub := range x {
				walkUnknown(sub, t.Elem(), path+"[]", seen, depth+1)
			}
		}
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// structFields maps a struct's JSON keys (lower-cased) to their types,
// embedded structs' fields included.
func structFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				for k, v := range structFields(et) {
					if _, ok := m[k]; !ok {
						m[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[strings.ToLower(name)] = f.Type
	}
	return m
}
