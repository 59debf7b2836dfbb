package jsonfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCheckKeys(t *testing.T) {
	for _, c := range []struct {
		in   string
		fold bool
		want string // "" no error
	}{
		{`{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}`, false, ""},
		{"{\"a\":1,\n\"a\":2}", false, `line 2: duplicate key "a" (first on line 1)`},
		{"{\"changes\":[{\"kind\":\"x\"},\n{\"risk\":\"\",\n\"risk\":\"low\"}]}", false, `line 3: duplicate key "risk" in changes[1] (first on line 2)`},
		{`{"risk":"a","RISK":"b"}`, false, ""},
		{`{"risk":"a","RISK":"b"}`, true, `duplicate key "RISK"`},
		{`{"k":1,"\u212a":2}`, true, "duplicate key \"\u212a\""},
		{`{"a\/b":1,"a/b":2}`, false, `duplicate key "a/b"`},
		{`{"\u0061":1,"a":2}`, false, `duplicate key "a"`},
		{`[{"x":[[{"y":1,"y":2}]]}]`, false, `duplicate key "y" in [0].x[0][0]`},
		{`{"a":"}{\"a\":","b":"\\","c":1}`, false, ""},
	} {
		err := CheckKeys([]byte(c.in), c.fold)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s fold=%v: %v, want %q", c.in, c.fold, err, c.want)
		}
	}
}

func TestArrayLines(t *testing.T) {
	in := "{\n\"x\": {\"changes\": [1]},\n\"changes\": [\n {\"a\": [1,\n2]},\n {\"b\": 1}, 3\n]}"
	if got := ArrayLines([]byte(in), "changes"); len(got) != 3 || got[0] != 4 || got[1] != 6 || got[2] != 6 {
		t.Fatalf("%v", got)
	}
	if got := ArrayLines([]byte(`{"changes":null}`), "changes"); got != nil {
		t.Fatalf("%v", got)
	}
}

// refDuplicate is a second reading: encoding/json's tokenizer, each
// object's keys in a map.
func refDuplicate(b []byte, fold bool) (key string, line int, found bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct {
		obj    bool
		keys   map[string]bool
		expect bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", 0, false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.expect {
			if k, ok := tok.(string); ok {
				cmp := k
				if fold {
					cmp = foldKey(k)
				}
				if top.keys[cmp] {
					return k, 1 + bytes.Count(b[:dec.InputOffset()], []byte("\n")), true
				}
				top.keys[cmp] = true
				top.expect = false
				continue
			}
		}
		if top != nil && top.obj && !top.expect {
			top.expect = true // this token is the value (or its start)
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, expect: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

// FuzzCheckKeys: on every valid JSON document, CheckKeys finds a duplicate
// exactly when encoding/json's tokenizer (with a map per object) does, the
// same key on the same line.
func FuzzCheckKeys(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, "{\"a\":{\"b\":1},\n\"c\":[{\"d\":1,\"D\":2}]}", `{"\u00e9":1,"\u00c9":2}`, `[1,"x",{"k":null,"\u212a":true}]`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, fold bool) {
		if !json.Valid(b) {
			return
		}
		err := CheckKeys(b, fold)
		key, line, found := refDuplicate(b, fold)
		var de *DuplicateKeyError
		if found != (err != nil) || err != nil && (!errors.As(err, &de) || de.Key != key || de.Line != line) {
			t.Fatalf("%q fold=%v: CheckKeys %v; reference %v %q line %d", b, fold, err, found, key, line)
		}
	})
}

func TestCheckKeysInvalidUTF8(t *testing.T) {
	// encoding/json reads both keys as "\ufffd".
	if err := CheckKeys([]byte("{\"\xff\":1,\"\xfe\":2}"), false); err == nil {
		t.Fatal("two keys that encoding/json reads as one were accepted")
	}
}

func TestCheckKeysSurrogates(t *testing.T) {
	if err := CheckKeys([]byte(`{"\ud83d\ude00":1,"😀":2}`), false); err == nil {
		t.Fatal("a surrogate pair and its rune are one key")
	}
	if err := CheckKeys([]byte(`{"\ud83d":1,"\ude00":2}`), false); err == nil {
		t.Fatal("two lone surrogates are both U+FFFD")
	}
	if err := CheckKeys([]byte(`{"\ud83d\u0041":1,"\ufffdA":2}`), false); err == nil {
		t.Fatal("a lone surrogate then A")
	}
}
