package report

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/plan"
)

// PlanSummary is the readable text `dbhost plan` prints: what would change,
// what waits for a reboot, what a DBA must do by hand, and where the files
// are (dir: where the plan was written, "" for none).
func PlanSummary(p *plan.Plan, dir string) []byte {
	d := newTextDoc(0)
	planSummary(d, p, dir)
	return d.bytes()
}

// PlanMarkdown is PlanSummary's view in Markdown.
func PlanMarkdown(p *plan.Plan, dir string) []byte {
	d := &mdDoc{}
	planSummary(d, p, dir)
	return d.bytes()
}

func planSummary(d doc, p *plan.Plan, dir string) {
	head := fmt.Sprintf("dbhost plan for %s (workload %s, db %s)", orDash(p.Host), p.Workload, p.DB)
	if dir != "" {
		head += fmt.Sprintf(" written to %s/", strings.TrimSuffix(dir, "/"))
	}
	d.title(head)
	tuned := "tuned base profile: " + p.TunedProfile
	if p.TunedWhy != "" {
		tuned += fmt.Sprintf(" (%s)", p.TunedWhy)
	}
	d.line(tuned)
	var kept, todo []change.Change
	for _, c := range p.Changes {
		if c.InPlace {
			kept = append(kept, c)
		} else {
			todo = append(todo, c)
		}
	}
	d.section(fmt.Sprintf("Changes (%d):", len(todo)))
	if len(todo) == 0 {
		d.item("none")
	}
	for _, g := range plan.GroupByCPU(todo) {
		c := todo[g[0]]
		cur := c.Current
		if cur == "" {
			cur = "(not read)"
		}
		d.item(fmt.Sprintf("%-7s %s: %s → %s   [%s]", c.Kind, d.code(plan.CPUKey(todo, g)), oneLine(cur), oneLine(c.Value), c.Rule))
		if c.Risk != "" {
			d.item("        RISK (apply needs --accept-risk): " + oneLine(c.Risk))
		}
	}
	var pending []change.Change
	for _, c := range p.PendingReboot {
		if c.InPlace {
			kept = append(kept, c)
		} else {
			pending = append(pending, c)
		}
	}
	if len(kept) > 0 {
		d.section(fmt.Sprintf("Already in place, kept in the artifacts so that they survive a reboot (%d):", len(kept)))
		for _, g := range plan.GroupByCPU(kept) {
			c := kept[g[0]]
			v := c.Value
			if c.Kind == change.BootArg {
				v = plan.BootArg(c)
				if c.Remove {
					v = "(removed)"
				}
			}
			d.item(fmt.Sprintf("%-7s %s = %s   [%s]", c.Kind, d.code(plan.CPUKey(kept, g)), oneLine(v), c.Rule))
		}
	}
	if len(pending) > 0 {
		d.section(fmt.Sprintf("Pending reboot: boot arguments (%d, commands in %s):", len(pending), plan.BootArgFile))
		for _, c := range pending {
			if c.Remove {
				cur := c.Key
				if c.Current != "" {
					cur += "=" + c.Current
				}
				d.item(fmt.Sprintf("remove %s   [%s]", d.code(cur), c.Rule))
			} else {
				d.item(fmt.Sprintf("add    %s   [%s]", d.code(plan.BootArg(c)), c.Rule))
			}
		}
	}
	if len(p.AfterApply) > 0 {
		d.section(fmt.Sprintf("After the changes, for them to take effect (%d):", len(p.AfterApply)))
		for _, st := range p.AfterApply {
			for _, x := range st.Steps {
				d.item(fmt.Sprintf("%s   [%s]", oneLine(x), st.Rule))
			}
		}
	}
	if len(p.Conflicts) > 0 {
		d.section(fmt.Sprintf("Conflicts resolved (%d):", len(p.Conflicts)))
		for _, c := range p.Conflicts {
			d.item(c)
		}
	}
	if len(p.Dropped) > 0 {
		d.section(fmt.Sprintf("Left out, not safe to write (%d):", len(p.Dropped)))
		for _, x := range p.Dropped {
			d.item(oneLine(x))
		}
	}
	if len(p.FindingsWithoutChanges) > 0 {
		d.section(fmt.Sprintf("For a DBA to act on (no setting dbhost can change, %d):", len(p.FindingsWithoutChanges)))
		for _, a := range p.FindingsWithoutChanges {
			d.item(fmt.Sprintf("[%s] %s: %s: %s → %s", a.Severity, a.Rule, a.Setting, oneLine(a.Current), oneLine(a.Recommended)))
		}
	}
	if dir != "" {
		x := strings.TrimSuffix(dir, "/") + "/"
		var files []string
		for _, n := range p.ArtifactNames() {
			files = append(files, d.code(x+n))
		}
		d.section("Files: " + strings.Join(files, ", "))
		if p.TunedV02 {
			d.line("No tuned.conf: this host's tuned is RHEL 6's 0.2, which cannot load a tuned 2.x profile; select " +
				d.code("tuned-adm profile "+p.TunedProfile) + " and keep the settings in the files above.")
		}
		d.line("Nothing was changed on this host. Review with: " + d.code("dbhost apply --dry-run --plan "+x+plan.FileName))
	}
}
