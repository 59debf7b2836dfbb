package rules

import (
	"strings"
	"testing"
)

// A quote is printed as the seed's text, not its Markdown (issue 26): 000
// writes “kernel.numa\_balancing”, which a reader must see as
// kernel.numa_balancing in every finding, catalog and report.
func TestQuotesPrintTextNotMarkup(t *testing.T) {
	for _, r := range All() {
		for _, s := range r.Sources {
			for _, text := range []string{s.Quote, s.Cite()} {
				for i := 0; i+1 < len(text); i++ {
					if text[i] == '\\' && asciiPunct(text[i+1]) {
						t.Errorf("%s: Markdown escape %q in %q", r.ID, text[i:i+2], text)
						break
					}
				}
			}
		}
	}
	r, ok := Lookup("numa.awr-mutex-numa-balancing")
	if !ok {
		t.Fatal("numa.awr-mutex-numa-balancing not registered")
	}
	found := false
	for _, s := range r.Sources {
		found = found || strings.Contains(s.Cite(), "setting the “kernel.numa_balancing” parameter to 0")
	}
	if !found {
		t.Errorf("000's recommendation not cited as text: %+v", r.Sources)
	}
}

func TestMarkdownText(t *testing.T) {
	for in, want := range map[string]string{
		`kernel.numa\_balancing`:    "kernel.numa_balancing",
		`book\\_sle\_tuning`:        `book\_sle_tuning`, // \\ is a backslash, then a plain _
		`\*not emphasis\* \[x\] \#`: "*not emphasis* [x] #",
		`C:\temp and \é stay`:       `C:\temp and \é stay`, // no escape before a letter or non-ASCII
		"tab\tseparated\t0":         "tab\tseparated\t0",
		`trailing \`:                `trailing \`,
		"no markup at all":          "no markup at all",
	} {
		if got := MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
}
