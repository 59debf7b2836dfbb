package jsonfmt

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestPretty(t *testing.T) {
	in := `{"a":[1,2,3],"b":[],"c":{},"d":[{"x":"a,b[]{}\"q","y":[true,null]}],"e":"x:y","f":[[1],[2]]}`
	want := `{
  "a": [1, 2, 3],
  "b": [],
  "c": {},
  "d": [
    {
      "x": "a,b[]{}\"q",
      "y": [true, null]
    }
  ],
  "e": "x:y",
  "f": [
    [1],
    [2]
  ]
}`
	if got := string(Indent([]byte(in))); got != want {
		t.Errorf("pretty:\n%s\nwant:\n%s", got, want)
	}
}

// FuzzPretty: for any valid JSON, Indent's output is valid JSON with the same value.
func FuzzPretty(f *testing.F) {
	for _, s := range []string{`{"a":[1,2]}`, `[["x",",[]"],{}]`, `"s"`, `{"k":"\\\"[{"}`, `[1e3,-0.5,true,false,null]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v1 any
		var compact bytes.Buffer
		if json.Unmarshal([]byte(s), &v1) != nil || json.Compact(&compact, []byte(s)) != nil {
			return
		}
		out := Indent(compact.Bytes())
		var v2 any
		if err := json.Unmarshal(out, &v2); err != nil {
			t.Fatalf("Indent(%q) = %q: invalid JSON: %v", compact.String(), out, err)
		}
		a, _ := json.Marshal(v1)
		b, _ := json.Marshal(v2)
		if !bytes.Equal(a, b) {
			t.Fatalf("pretty changed the value: %s vs %s", a, b)
		}
	})
}

func TestDecodeError(t *testing.T) {
	type doc struct {
		A int `json:"a"`
	}
	for in, want := range map[string]string{
		"{\n\"a\": 1,\n}":         "line 3: invalid character '}'",
		"{\n\n\"a\": \"x\"}":      "line 3: json: cannot unmarshal string",
		"{\n\"a\": 1,\n\"b\": 2}": "line 3: json: unknown field \"b\"",
		"{\n\"a\":\n":             "line 2: the file ends inside the JSON document",
		"\n \n":                   "the file is empty",
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.DisallowUnknownFields()
		var d doc
		err := dec.Decode(&d)
		if got := DecodeError([]byte(in), err); err == nil || !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// An invalid UTF-8 byte (a sysctl value "\x00\xff") is written as U+FFFD;
// read back and written again, the document is the same bytes, flat
// arrays' strings included; an escaped backslash before "ufffd" is text.
func TestMarshalInvalidUTF8Idempotent(t *testing.T) {
	v := map[string]any{"a": "\x00\xff", "l": []string{"x\xfey", "\\ufffd"}, "n": map[string]string{"k": `\ufffd`}}
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	again, err := Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(b) {
		t.Errorf("not idempotent:\n%s\n%s", b, again)
	}
	if back["a"] != "\x00\uFFFD" || back["n"].(map[string]any)["k"] != `\ufffd` || back["l"].([]any)[1] != `\ufffd` {
		t.Errorf("read back %q", back)
	}
}
