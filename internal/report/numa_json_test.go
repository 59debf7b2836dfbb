package report

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestJSONKeepsScalarArraysOnOneLine(t *testing.T) {
	v := map[string]any{"cpus": []int{1, 2, 3}, "s": []string{"a,b", "c\"]"}, "o": []map[string]int{{"n": 1}}, "e": []int{}, "m": map[string]int{}}
	b, err := JSON(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"cpus\": [1, 2, 3],\n  \"e\": [],\n  \"m\": {},\n  \"o\": [\n    {\n      \"n\": 1\n    }\n  ],\n  \"s\": [\"a,b\", \"c\\\"]\"]\n}\n"
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	var orig map[string]any
	raw, _ := json.Marshal(v)
	json.Unmarshal(raw, &orig)
	if !reflect.DeepEqual(back, orig) {
		t.Errorf("round trip changed the value: %v", back)
	}
}
