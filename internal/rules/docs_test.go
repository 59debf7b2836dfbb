package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsRulesTable: docs/rules.md's "Rules in this build" table has one
// row per registered rule, and names the thresholds that are dbhost's own
// exactly for the rules that have some.
func TestDocsRulesTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "## Rules in this build")
	if !ok {
		t.Fatal("docs/rules.md has no \"## Rules in this build\" section")
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[0]), "`") {
			continue
		}
		id := strings.Trim(strings.TrimSpace(cells[0]), "`")
		if _, dup := rows[id]; dup {
			t.Errorf("docs/rules.md: two rows for %s", id)
		}
		rows[id] = cells
	}
	for _, r := range All() {
		cells, ok := rows[r.ID]
		if !ok {
			t.Errorf("docs/rules.md: no row for rule %s", r.ID)
			continue
		}
		delete(rows, r.ID)
		own := strings.TrimSpace(cells[3])
		if len(r.Thresholds) > 0 && (own == "" || own == "—") {
			t.Errorf("docs/rules.md: %s has thresholds of dbhost's own (%s) but its row names none", r.ID, strings.Join(r.Thresholds, "; "))
		}
		if len(r.Thresholds) == 0 && own != "—" {
			t.Errorf("docs/rules.md: %s has no threshold of dbhost's own, its row says %q", r.ID, own)
		}
	}
	for id := range rows {
		t.Errorf("docs/rules.md: row for %s, which is not a registered rule", id)
	}
}
