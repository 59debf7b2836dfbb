package report

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/plan"
)

// The steps after the changes (plan.AfterApply) are printed with their rule.
func TestPlanSummaryAfterApply(t *testing.T) {
	p := &plan.Plan{Host: "db1", Workload: "oltp", DB: "postgres",
		AfterApply: []plan.Step{{Rule: "db.pg-huge-pages-pool", Steps: []string{"psql -c \"ALTER SYSTEM SET huge_pages = 'on'\"", "restart PostgreSQL: it maps huge pages only at start"}}}}
	out := string(PlanSummary(p, ""))
	if !strings.Contains(out, "After the changes, for them to take effect (1):") ||
		!strings.Contains(out, "restart PostgreSQL: it maps huge pages only at start   [db.pg-huge-pages-pool]") {
		t.Errorf("summary:\n%s", out)
	}
}
