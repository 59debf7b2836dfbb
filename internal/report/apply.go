package report

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/cpulist"
)

// The renderers of dbhost apply, verify and rollback (and place --apply).
// Standard output gets the changes and their outcome; warnings (a legacy
// journal, a plan made for another host) are returned apart, for standard
// error. Identical changes on many CPUs print as one line with the CPUs
// as a range ("/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor (240
// CPUs: 0-239)").

var applyMarks = map[string]string{
	apply.StatusChange: "~", apply.StatusApplied: "+", apply.StatusUnchanged: "=", apply.StatusFailed: "x",
	apply.StatusRefused: "!", apply.StatusPending: ">", apply.StatusManual: "?", apply.StatusAbsent: "-",
}

// perCPUGroups groups n lines whose setting (a path) differs only in its
// CPU and whose other fields (rest) are equal.
func perCPUGroups(n int, setting func(int) string, rest func(int) []string) [][]int {
	return cpulist.GroupPerCPU(n, setting, func(i int) string { return strings.Join(rest(i), "\x00") })
}

// groupName names a group (cpulist.GroupLabel).
func groupName(g []int, setting func(int) string) string {
	paths := make([]string, len(g))
	for k, i := range g {
		paths[k] = setting(i)
	}
	return cpulist.GroupLabel(paths)
}

// ApplyText is the diff: one line per setting (or per group of CPUs),
// "current → new", with its rule and why, then what happened. r.Warnings
// are not in it: print them on standard error.
func ApplyText(r *apply.Result) []byte {
	return draw(newTextDoc(0), func(d doc) { applyView(d, r) })
}

// ApplyMarkdown is ApplyText's view in Markdown (warnings apart, as in text).
func ApplyMarkdown(r *apply.Result) []byte {
	return draw(&mdDoc{}, func(d doc) {
		d.title("dbhost apply")
		applyView(d, r)
	})
}

func applyView(d doc, r *apply.Result) {
	if r.DryRun {
		d.line("dbhost apply --dry-run: nothing is changed")
	}
	setting := func(i int) string { return r.Items[i].Setting }
	groups := perCPUGroups(len(r.Items), setting, func(i int) []string {
		it := r.Items[i]
		side := make([]string, 0, 3*len(it.Side))
		for _, s := range it.Side {
			side = append(side, s.Path, s.Old, s.New)
		}
		return append([]string{it.Kind, it.Status, it.Current, it.New, it.Rule, it.Why, it.Message, it.Command}, side...)
	})
	for _, g := range groups {
		it := r.Items[g[0]]
		cur := it.Current
		if cur == "" {
			cur = "(unknown)"
		}
		l := fmt.Sprintf("%s %s: %s → %s  [%s]", applyMarks[it.Status], d.code(groupName(g, setting)), cur, it.New, it.Rule)
		if it.Why != "" {
			l += " " + it.Why
		}
		d.line(l)
		switch it.Status {
		case apply.StatusUnchanged:
			d.item("  already set: nothing written")
		case apply.StatusPending:
			d.item("  pending reboot: " + d.code(it.Command))
		}
		if it.Message != "" && it.Status != apply.StatusPending {
			d.item(fmt.Sprintf("  %s: %s", it.Status, it.Message))
		}
		for _, s := range it.Side {
			d.item(fmt.Sprintf("  the kernel also changed %s: %s → %s (journaled; rollback restores it)", d.code(s.Path), s.Old, s.New))
		}
	}
	var parts []string
	for _, s := range []struct{ st, word string }{
		{apply.StatusChange, "to change"}, {apply.StatusApplied, "applied"}, {apply.StatusUnchanged, "already set"},
		{apply.StatusFailed, "failed"}, {apply.StatusRefused, "refused (risky)"}, {apply.StatusPending, "pending reboot"},
		{apply.StatusManual, "manual"}, {apply.StatusAbsent, "not on this host"},
	} {
		if n := r.Count(s.st); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.word))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no changes in the plan")
	}
	l := strings.Join(parts, ", ")
	switch {
	case r.JournalID != "":
		l += fmt.Sprintf("; journal %s ('dbhost rollback' restores every value)", r.JournalID)
	case !r.DryRun && r.Count(apply.StatusUnchanged) > 0 && r.Count(apply.StatusFailed) == 0:
		l += "; nothing written"
	}
	d.line(l)
}

// RollbackWarnings are what rollback warns about (a journal in the legacy
// format), for standard error.
func RollbackWarnings(r *apply.RollbackResult) []string {
	var out []string
	for _, j := range r.Journals {
		if j.Legacy {
			out = append(out, fmt.Sprintf("journal %s is in the legacy format (written before checksums): its integrity cannot be verified", j.ID))
		}
	}
	return out
}

// RollbackText is what rollback restored, per journal; warnings are apart
// (RollbackWarnings).
func RollbackText(r *apply.RollbackResult) []byte {
	return draw(newTextDoc(0), func(d doc) { rollbackView(d, r) })
}

// RollbackMarkdown is RollbackText's view in Markdown (warnings apart, as
// in text).
func RollbackMarkdown(r *apply.RollbackResult) []byte {
	return draw(&mdDoc{}, func(d doc) {
		d.title("dbhost rollback")
		rollbackView(d, r)
	})
}

func rollbackView(d doc, r *apply.RollbackResult) {
	for _, j := range r.Journals {
		switch {
		case j.Empty:
			d.line(fmt.Sprintf("journal %s: empty (the apply stopped before its first entry), nothing to do", j.ID))
			continue
		case j.Already:
			d.line(fmt.Sprintf("journal %s: already rolled back, nothing to do", j.ID))
			continue
		}
		n := map[string]int{}
		var shown []apply.Restore
		for _, x := range j.Restores {
			n[x.Status]++
			if x.Status != apply.RestoreUnchanged {
				shown = append(shown, x)
			}
		}
		setting := func(i int) string { return shown[i].Path }
		for _, g := range perCPUGroups(len(shown), setting, func(i int) []string {
			x := shown[i]
			return []string{x.Status, x.Live, x.Old, x.Message, strings.ReplaceAll(x.Setting, x.Path, "")}
		}) {
			x := shown[g[0]]
			name := d.code(groupName(g, setting))
			if x.Setting != "" && x.Setting != x.Path && len(g) == 1 {
				name = d.code(x.Setting) + " (" + d.code(x.Path) + ")"
			}
			l := fmt.Sprintf("%s %s: %s → %s", map[string]string{apply.RestoreDone: "+", apply.RestoreRemoved: "-", apply.RestoreFailed: "x"}[x.Status], name, x.Live, x.Old)
			if x.Status == apply.RestoreRemoved {
				l += " (file removed: apply had created it)"
			}
			d.line(l)
			if x.Message != "" {
				d.item("  " + x.Message)
			}
		}
		l := fmt.Sprintf("journal %s: %d value(s) restored, %d already at their old value", j.ID, n[apply.RestoreDone]+n[apply.RestoreRemoved], n[apply.RestoreUnchanged])
		if n[apply.RestoreFailed] > 0 {
			l += fmt.Sprintf(", %d NOT restored (the journal stays open)", n[apply.RestoreFailed])
		}
		d.line(l)
		if len(j.Damage) > 0 {
			damage(d, j.ID, j.Damage)
			d.line("rollback stopped at the damage: nothing was written for the entries at or before it, the journal is left as it is (not marked rolled back), older journals are not touched")
			if len(j.NotRestored) > 0 || j.Lost {
				d.line("NOT restored (restore them by hand; newest first):")
			}
			for _, u := range j.NotRestored {
				if u.Unreadable {
					d.item(fmt.Sprintf("! line %d cannot be read: whatever it recorded is unknown", u.Line))
					continue
				}
				name := d.code(u.Path)
				if u.Setting != "" && u.Setting != u.Path {
					name = d.code(u.Setting) + " (" + d.code(u.Path) + ")"
				}
				old := fmt.Sprintf("%q", u.Old)
				if u.OldAbsent {
					old = "(absent: apply created it)"
				} else if u.Kind == "file" {
					old = fmt.Sprintf("%d bytes (in the journal's line %d)", len(u.Old), u.Line)
				}
				note := ""
				if !u.Verified {
					note = "  (from a damaged line: unverified, may be wrong)"
				}
				d.item(fmt.Sprintf("! %s: recorded old value %s%s", name, old, note))
				if len(u.Side) > 0 {
					var ws []string
					for _, w := range u.Side {
						ws = append(ws, fmt.Sprintf("%s %q", d.code(w.Path), apply.Value(w.Old)))
					}
					d.item("    with it the kernel changed (or may have changed), old values: " + strings.Join(ws, ", "))
				}
			}
			if j.Lost {
				d.item("! and whatever the lost entries at the end recorded: unknown")
			}
		}
	}
}

// DamageText says where a journal is damaged (at most 10 places).
func DamageText(id string, ds []apply.Damage) []byte {
	d := newTextDoc(0)
	damage(d, id, ds)
	return d.bytes()
}

func damage(d doc, id string, ds []apply.Damage) {
	d.line(fmt.Sprintf("journal %s is DAMAGED (%d place(s)):", id, len(ds)))
	for i, x := range ds {
		if i == 10 {
			d.item(fmt.Sprintf("... and %d more", len(ds)-i))
			break
		}
		d.item(fmt.Sprint(x))
	}
}

// VerifyJournalText is verify's text for what (a journal or a plan): the
// checks (VerifyText), then where the journal is damaged and, for an apply
// that never reached its end, that it was interrupted.
func VerifyJournalText(what string, checks []apply.Check, damage []apply.Damage, interrupted bool) []byte {
	d := newTextDoc(0)
	verifyJournal(d, what, checks, damage, interrupted)
	return d.bytes()
}

// VerifyMarkdown is VerifyJournalText's view in Markdown.
func VerifyMarkdown(what string, checks []apply.Check, damage []apply.Damage, interrupted bool) []byte {
	d := &mdDoc{}
	d.title("verify " + what)
	verifyJournal(d, what, checks, damage, interrupted)
	return d.bytes()
}

func verifyJournal(d doc, what string, checks []apply.Check, ds []apply.Damage, interrupted bool) {
	verify(d, what, checks)
	if len(ds) > 0 {
		damage(d, strings.TrimPrefix(what, "journal "), ds)
		d.line("what the damaged or lost entries recorded cannot be verified: NOT as applied")
	}
	if interrupted {
		d.line(fmt.Sprintf("%s was INTERRUPTED (crash, kill or internal error) after the writes above: the changes it had not reached were never made, NOT as applied; 'dbhost rollback' undoes it, or apply again", what))
	}
}

// VerifyText is one line per setting checked (or per group of CPUs), its
// live and applied value and, for a drift, the likely cause.
func VerifyText(what string, checks []apply.Check) []byte {
	d := newTextDoc(0)
	verify(d, what, checks)
	return d.bytes()
}

func verify(d doc, what string, checks []apply.Check) {
	ok := 0
	for _, ch := range checks {
		if ch.Status == "ok" {
			ok++
		}
	}
	setting := func(i int) string { return checks[i].Setting }
	for _, g := range perCPUGroups(len(checks), setting, func(i int) []string {
		ch := checks[i]
		return []string{ch.Kind, ch.Live, ch.Want, ch.Rule, ch.Status, ch.Cause}
	}) {
		ch := checks[g[0]]
		mark := "x"
		if ch.Status == "ok" {
			mark = "="
		}
		d.line(fmt.Sprintf("%s %s: live %s, applied %s  [%s] %s", mark, d.code(groupName(g, setting)), ch.Live, ch.Want, ch.Rule, ch.Status))
		if ch.Cause != "" {
			d.item("  cause: " + ch.Cause)
		}
	}
	d.line(fmt.Sprintf("verify %s: %d of %d setting(s) as applied", what, ok, len(checks)))
}
