package report

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/rules"
)

// rules list and every rule's show: the Markdown says what the text says,
// the catalog a row per rule, a rule's every citation and threshold.
func TestRulesMarkdown(t *testing.T) {
	all := rules.All()
	md := string(RulesMarkdown(all))
	checkSameView(t, "rules list", RulesText(all), []byte(md))
	if n := strings.Count(md, "\n| `"); n != len(all) {
		t.Errorf("rules list: %d rows, want %d:\n%s", n, len(all), md)
	}
	for _, r := range all {
		md := string(RuleMarkdown(r))
		checkSameView(t, r.ID, RuleText(r), []byte(md))
		want := []string{"# `" + r.ID + "` — ", "| area | " + r.Area + " |", "| applies to | " + mdCell(appliesTo(r)) + " |"}
		for _, s := range r.Sources {
			want = append(want, " | "+mdCell(s.Cite())+" |\n")
		}
		for _, th := range r.Thresholds {
			want = append(want, " | "+mdCell(th)+" (dbhost's, no source gives one) |\n")
		}
		for _, w := range want {
			if !strings.Contains(md, w) {
				t.Errorf("%s: the Markdown lacks %q:\n%s", r.ID, w, md)
			}
		}
	}
}
