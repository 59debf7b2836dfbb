package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The seed documents are optional test data (../shared/seeds beside the
// repository, or $DBHOST_SEEDS): the source test skips, saying so, when they
// are absent.
func seedDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("DBHOST_SEEDS"); d != "" {
		return d
	}
	d, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "seeds"))
	if err != nil {
		t.Skipf("seed documents: %v", err)
	}
	if _, err := os.Stat(filepath.Join(d, Seed000)); err != nil {
		t.Skipf("seed documents not found in %s (set DBHOST_SEEDS to check every Sources quote against them)", d)
	}
	return d
}

var (
	seedEscape = regexp.MustCompile(`\\([\\_*#\[\]()&$|.\-{}])`)
	seedMarkup = strings.NewReplacer("*", "", "`", "", "<b>", "", "</b>", "", "<i>", "", "</i>", "", "<u>", "", "</u>", "",
		"<sup>", "", "</sup>", "", "“", `"`, "”", `"`, "„", `"`, "‘", "'", "’", "'", "–", "-", "—", "-", "…", "...", "\u00a0", " ")
	boldLine = regexp.MustCompile(`^\*\*[^*]+\*\*:?$`)
)

// normSeed is the form quotes and seeds are compared in: markdown escapes,
// emphasis and code marks removed (every '*' and '`'), typographic quotes and dashes made plain, runs of
// white space one space, lower case.
func normSeed(s string) string {
	s = seedMarkup.Replace(seedEscape.ReplaceAllString(s, "$1"))
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// seedDoc is a seed as one normalized text, with where each line starts in
// it and each line's heading level: 1-6 for markdown '#' headings, 7 for a
// line in bold only, 8 for a bold callout ("**Note**": it holds the
// paragraph below it and ends no section), 0 for text.
type seedDoc struct {
	text   string
	starts []int
	level  []int
	blank  []bool
}

// calloutLevel is the level of a bold callout line ("**Note**").
const calloutLevel = 8

func loadSeed(t *testing.T, dir, name string) *seedDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("seed %s: %v", name, err)
	}
	d := &seedDoc{}
	var sb strings.Builder
	code := false // inside a ``` block, where '#' starts a shell prompt, not a heading
	for _, line := range strings.Split(string(b), "\n") {
		d.starts = append(d.starts, sb.Len())
		raw := strings.TrimSpace(line)
		lv := 0
		switch {
		case strings.HasPrefix(raw, "```"):
			code = !code
		case code:
		case strings.HasPrefix(raw, "#"):
			lv = len(raw) - len(strings.TrimLeft(raw, "#"))
		case boldLine.MatchString(raw) && normSeed(raw) == "note":
			lv = calloutLevel
		case boldLine.MatchString(raw):
			lv = 7
		}
		d.level = append(d.level, lv)
		d.blank = append(d.blank, raw == "")
		if n := normSeed(line); n != "" {
			sb.WriteString(n)
			sb.WriteByte(' ')
		}
	}
	d.text = sb.String()
	return d
}

// lineAt is the line holding text offset off.
func (d *seedDoc) lineAt(off int) int {
	lo, hi := 0, len(d.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if d.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// Plain text (slides, blog posts) has no heading markup: a section is taken
// to run this many lines after its title, and a sub-section's title to be at
// most subLines below its parent's.
const sectionLines, subLines = 60, 400

// spanEnd is where the section whose title is at offset off ends: the next
// heading of the same or a higher level when the title is a heading, else
// the next heading of any level or maxLines lines, whichever is first. A
// bold line ("**P-states**") holds bold sub-headings ("**Recommendation**")
// when it is the parent of a section path: it then ends at a '#' heading.
func (d *seedDoc) spanEnd(off, maxLines int, parent bool) int {
	l := d.lineAt(off)
	lv := d.level[l]
	if lv == calloutLevel {
		// A callout holds its paragraph: it ends at the first blank line
		// after text, or at any heading.
		text := false
		for k := l + 1; k < len(d.starts); k++ {
			if d.level[k] > 0 && d.level[k] < calloutLevel || text && d.blank[k] {
				return d.starts[k]
			}
			text = text || !d.blank[k]
		}
		return len(d.text)
	}
	if parent && lv == 7 {
		lv = 6
	}
	for k := l + 1; k < len(d.starts); k++ {
		if lv > 0 && d.level[k] > 0 && d.level[k] <= lv || lv == 0 && d.level[k] > 0 || lv == 0 && k-l > maxLines {
			return d.starts[k]
		}
	}
	return len(d.text)
}

// findSection returns the spans [start, end) of the text under every
// occurrence of a section path ("A — B": B inside A's span).
func (d *seedDoc) findSection(section string) [][2]int {
	spans := [][2]int{{0, len(d.text)}}
	parts := strings.Split(section, " — ")
	for i, p := range parts {
		want := normSeed(p)
		if want == "" {
			return nil
		}
		max, parent := sectionLines, i < len(parts)-1
		if parent {
			max = subLines
		}
		var next [][2]int
		for _, sp := range spans {
			for from := sp[0]; from < sp[1]; {
				k := strings.Index(d.text[from:sp[1]], want)
				if k < 0 {
					break
				}
				at := from + k
				next = append(next, [2]int{at, min(d.spanEnd(at, max, parent), sp[1])})
				from = at + len(want)
			}
		}
		spans = next
	}
	return spans
}

// TestSourcesQuoteTheirSeedSection: every Sources entry citing a seed names
// a section the seed has and quotes a phrase that occurs in that section.
func TestSourcesQuoteTheirSeedSection(t *testing.T) {
	dir := seedDir(t)
	docs := map[string]*seedDoc{}
	for _, r := range All() {
		for _, s := range r.Sources {
			if _, vendor := vendorDoc(s.Doc); vendor || strings.Contains(s.Doc, "://") {
				continue // a vendor's: TestSourcesQuoteTheirVendorDoc
			}
			d := docs[s.Doc]
			if d == nil {
				d = loadSeed(t, dir, s.Doc)
				docs[s.Doc] = d
			}
			spans := d.findSection(s.Section)
			if len(spans) == 0 {
				t.Errorf("%s: section %q is not in %s", r.ID, s.Section, s.Doc)
				continue
			}
			q := normSeed(s.Quote)
			found := false
			for _, sp := range spans {
				if strings.Contains(d.text[sp[0]:sp[1]], q) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: quote %q is not in section %q of %s", r.ID, s.Quote, s.Section, s.Doc)
			}
		}
	}
}

// vendorDoc is the vendor document a source cites, if it is one.
func vendorDoc(file string) (Document, bool) {
	for _, d := range VendorDocuments() {
		if d.File == file {
			return d, true
		}
	}
	return Document{}, false
}

// TestSourcesQuoteTheirVendorDoc: every source citing a vendor's
// documentation names a section of the excerpts kept in the repository
// and quotes a phrase of it, as seeds are checked (never skipped: the
// excerpts are in the repository); each page section names its address.
func TestSourcesQuoteTheirVendorDoc(t *testing.T) {
	cited := map[string]int{}
	for _, v := range VendorDocuments() {
		if v.URL == "" || v.Version == "" || !strings.HasPrefix(v.KeptIn, "internal/rules/vendordocs/") {
			t.Errorf("%s: a vendor document needs its URL, version and the file keeping it: %+v", v.File, v)
			continue
		}
		kept := strings.TrimPrefix(v.KeptIn, "internal/rules/")
		d := loadSeed(t, filepath.Dir(kept), filepath.Base(kept))
		raw, _ := os.ReadFile(kept)
		if !strings.Contains(string(raw), v.URL) {
			t.Errorf("%s does not name the document's address %s", kept, v.URL)
		}
		for _, r := range All() {
			for _, s := range r.Sources {
				if s.Doc != v.File {
					continue
				}
				cited[v.File]++
				if s.Quote == "" {
					t.Errorf("%s: a vendor document's citation quotes it", r.ID)
				}
				page, _, _ := strings.Cut(s.Section, " — ")
				if !strings.Contains(string(raw), "URL: "+v.URL+page+"\n") {
					t.Errorf("%s: page %q has no address line in %s", r.ID, page, kept)
				}
				found := false
				for _, sp := range d.findSection(s.Section) {
					if strings.Contains(d.text[sp[0]:sp[1]], normSeed(s.Quote)) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: quote %q is not in section %q of %s", r.ID, s.Quote, s.Section, kept)
				}
			}
		}
	}
	if cited[DocPostgreSQL15] == 0 {
		t.Errorf("no rule cites %s", DocPostgreSQL15)
	}
}

// TestSeedSectionSearch pins the section finder on a small document.
func TestSeedSectionSearch(t *testing.T) {
	dir := t.TempDir()
	doc := "# Title\n\n## Scenario 2: HugePages\n\nintro text\n\n```\n# cat /proc/x\n```\n\n**Confirming**\n\nEXPECTED\\_PAGES 1077250\n\n**Recommendation**\n\nuse “2MB” pages\n\n**P-states**\n\nslow\n\n**Recommendation**\n\nfull speed\n\n## Scenario 3\n\nlisteners\n"
	if err := os.WriteFile(filepath.Join(dir, "d.txt"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	d := loadSeed(t, dir, "d.txt")
	in := func(section, quote string) bool {
		for _, sp := range d.findSection(section) {
			if strings.Contains(d.text[sp[0]:sp[1]], normSeed(quote)) {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		section, quote string
		want           bool
	}{
		{"Scenario 2: HugePages", "intro text", true},
		{"Scenario 2: HugePages", "cat /proc/x", true}, // '#' in a code block is a prompt
		{"Scenario 2: HugePages — Confirming", "expected_pages 1077250", true},
		{"Scenario 2: HugePages — Confirming", "use \"2MB\" pages", false}, // under Recommendation
		{"Scenario 2: HugePages — Recommendation", "use \"2MB\" pages", true},
		{"Scenario 2: HugePages", "listeners", false}, // the next ## section
		{"Scenario 3 — Confirming", "expected_pages", false},
		{"Scenario 4", "listeners", false},
		{"P-states — Recommendation", "full speed", true},
		{"P-states", "full speed", false}, // a bold heading ends at the next bold line
		{"Scenario 2: HugePages — Recommendation", "full speed", true},
	} {
		if got := in(c.section, c.quote); got != c.want {
			t.Errorf("%q / %q: %v, want %v", c.section, c.quote, got, c.want)
		}
	}
}

// TestNoteQuotesAreInANote: a source filed under a seed's "Note" quotes
// that note (a "### Note" heading's section, or the paragraph of a bold
// "**Note**" callout), not text that merely follows one (issue 26: three
// quotes of 000's Automatic NUMA balancing were filed under "Scenario 1 —
// Note", whose note is one sentence about the HammerDB figures).
func TestNoteQuotesAreInANote(t *testing.T) {
	dir := seedDir(t)
	docs := map[string]*seedDoc{}
	for _, r := range All() {
		for _, s := range r.Sources {
			parts := strings.Split(s.Section, " — ")
			if strings.Contains(s.Doc, "://") || normSeed(parts[len(parts)-1]) != "note" {
				continue
			}
			d := docs[s.Doc]
			if d == nil {
				d = loadSeed(t, dir, s.Doc)
				docs[s.Doc] = d
			}
			parents := [][2]int{{0, len(d.text)}}
			if len(parts) > 1 {
				parents = d.findSection(strings.Join(parts[:len(parts)-1], " — "))
			}
			q, found := normSeed(s.Quote), false
			for _, p := range parents {
				for l := d.lineAt(p[0]); l < len(d.starts) && d.starts[l] < p[1]; l++ {
					end := len(d.text)
					if l+1 < len(d.starts) {
						end = d.starts[l+1]
					}
					if d.level[l] == 0 || strings.TrimSpace(strings.TrimLeft(d.text[d.starts[l]:end], "# ")) != "note" {
						continue
					}
					if e := min(d.spanEnd(d.starts[l], sectionLines, false), p[1]); strings.Contains(d.text[d.starts[l]:e], q) {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("%s: quote %q is in no Note of %q (%s)", r.ID, s.Quote, s.Section, s.Doc)
			}
		}
	}
}
