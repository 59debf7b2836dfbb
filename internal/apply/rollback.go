package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// Restore is one value Rollback brought back (or found already back).
type Restore struct {
	Path    string `json:"path"`
	Setting string `json:"setting,omitempty"`
	Live    string `json:"live"` // before the rollback
	Old     string `json:"old"`  // restored value
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// Restore statuses.
const (
	RestoreDone      = "restored"
	RestoreRemoved   = "removed" // a file apply created
	RestoreUnchanged = "unchanged"
	RestoreFailed    = "failed"
)

// RolledBack is one journal's rollback.
type RolledBack struct {
	ID       string    `json:"journal_id"`
	Already  bool      `json:"already_rolled_back"`
	Empty    bool      `json:"empty,omitempty"` // killed before its first entry: nothing to do
	Restores []Restore `json:"restores"`
	// Legacy: a journal written before checksums; nothing in it could be verified.
	Legacy bool `json:"legacy,omitempty"`
	// Damage is where the journal cannot be trusted; the rollback stopped
	// at the last one and wrote nothing for it or anything before it.
	Damage []Damage `json:"damage,omitempty"`
	// NotRestored are the values the rollback did not restore because it
	// stopped at a damage, with their recorded old values.
	NotRestored []Unrestored `json:"not_restored,omitempty"`
	// Lost: entries after the last line were cut off; what they recorded is unknown.
	Lost bool `json:"lost_entries,omitempty"`
}

// Unrestored is a value a rollback stopped before: what the journal
// recorded for it.
type Unrestored struct {
	Line      int    `json:"line"`
	Kind      string `json:"kind,omitempty"`
	Setting   string `json:"setting,omitempty"`
	Path      string `json:"path"`
	Old       string `json:"old"`
	OldAbsent bool   `json:"old_absent,omitempty"`
	// Side are the files the kernel changed with the write (its side
	// entry), or, without a verified side entry, may have changed (the
	// watched files), with their old values.
	Side []Watched `json:"side,omitempty"`
	// Verified is false for a value read from a damaged line: it may be wrong.
	Verified bool `json:"verified"`
	// Unreadable: the damaged line Line cannot be read at all; whether it
	// recorded a write, and of what, is unknown.
	Unreadable bool `json:"unreadable,omitempty"`
}

// RollbackResult lists the journals undone, newest first.
type RollbackResult struct {
	Journals []RolledBack `json:"journals"`
}

// Stopped reports whether a damaged journal stopped the rollback.
func (r *RollbackResult) Stopped() bool {
	for _, j := range r.Journals {
		if len(j.Damage) > 0 {
			return true
		}
	}
	return false
}

// Failed counts restores that failed.
func (r *RollbackResult) Failed() int {
	n := 0
	for _, j := range r.Journals {
		for _, x := range j.Restores {
			if x.Status == RestoreFailed {
				n++
			}
		}
	}
	return n
}

// ErrNoJournal is returned when the state directory holds no journal.
var ErrNoJournal = fmt.Errorf("no apply journal: nothing to roll back")

// Rollback undoes the newest apply run (to == ""), or every run from the
// newest back to journal to, newest first. Each write is undone in reverse
// order, begun-but-unfinished ones too: the old value, then the values the
// kernel changed on its own. A value already at its old value is not
// written, so rolling back twice (or again after a crash in a rollback) is a
// no-op. A journal is marked rolled back only when every restore succeeded.
//
// A damaged journal (see Journal.Damage) is never written to: its writes
// after the last damage are restored, newest first, then the rollback
// stops — nothing is written for the damaged entry or any before it, and
// older journals are not touched — and the values not restored are listed
// with their recorded old values (RolledBack.NotRestored, Stopped).
func Rollback(to string, opt Options) (*RollbackResult, error) {
	opt.DryRun = false
	// Nothing to roll back: no journal, and no lock file an apply could be
	// holding. Said without taking the lock, which would create the state
	// directory and its lock file: nothing is created when there is nothing
	// to do.
	if !opt.Locked {
		ids, err := ListJournals(opt.StateDir)
		if _, lerr := os.Lstat(filepath.Join(opt.StateDir, lockFile)); err == nil && len(ids) == 0 && os.IsNotExist(lerr) {
			return nil, ErrNoJournal
		}
	}
	l, err := opt.lock()
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	sys := opt.sys()
	opt.cgroups = readCpusetHierarchies(opt.Root)
	ids, err := ListJournals(opt.StateDir)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, ErrNoJournal
	}
	targets := ids[len(ids)-1:]
	if to != "" {
		i := -1
		for k, id := range ids {
			if id == to {
				i = k
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("no journal %q in %s (have %s)", to, journalDir(opt.StateDir), strings.Join(ids, ", "))
		}
		targets = ids[i:]
	}
	res := &RollbackResult{}
	n := 0
	step := func() {
		n++
		if opt.Step != nil {
			opt.Step(n)
		}
	}
	for k := len(targets) - 1; k >= 0; k-- {
		j, err := LoadJournal(opt.StateDir, targets[k])
		if err != nil {
			return res, err
		}
		rb := RolledBack{ID: j.ID, Legacy: j.Format == FormatLegacy, Damage: j.Damage}
		if live := opt.Root.Dir == "" || opt.Root.Dir == "/"; j.Header.Root != "" && (j.Header.Root == "/") != live {
			return res, fmt.Errorf("journal %s was written by an apply on %s, not on %s: refusing to restore its values here", j.ID, rootName(j.Header.Root), rootName(opt.Root.Dir))
		}
		if j.Empty() {
			rb.Empty = true
			res.Journals = append(res.Journals, rb)
			continue
		}
		if j.RolledBack && j.markTrusted() {
			rb.Already = true
			rb.Damage = nil
			res.Journals = append(res.Journals, rb)
			continue
		}
		if j.Damaged() {
			rollbackDamaged(j, &rb, sys, opt, step)
			res.Journals = append(res.Journals, rb)
			return res, nil // older journals wait until this one is dealt with
		}
		// A journal that cannot be written stops the rollback: the values
		// of this journal and of the older ones still to undo are listed,
		// each NOT restored, with the reason.
		stop := func(w int, err error) (*RollbackResult, error) {
			err = fmt.Errorf("journal %s: %w", j.ID, err)
			for ; w >= 0; w-- {
				rb.Restores = append(rb.Restores, notRestored(j.Writes[w], err)...)
			}
			res.Journals = append(res.Journals, rb)
			for k--; k >= 0; k-- {
				older := RolledBack{ID: targets[k]}
				if oj, lerr := LoadJournal(opt.StateDir, targets[k]); lerr == nil && !oj.RolledBack {
					for w := len(oj.Writes) - 1; w >= 0; w-- {
						older.Restores = append(older.Restores, notRestored(oj.Writes[w], err)...)
					}
				}
				res.Journals = append(res.Journals, older)
			}
			return res, err
		}
		jf, err := openJournal(j)
		if err != nil {
			return stop(len(j.Writes)-1, err)
		}
		jf.hook = step
		if err := jf.append(Entry{State: StateRollback, Time: stamp(opt.now())}); err != nil {
			jf.close()
			return stop(len(j.Writes)-1, err)
		}
		failed := false
		for w := len(j.Writes) - 1; w >= 0; w-- {
			rs := restoreOne(j, j.Writes[w], sys, opt, step)
			msg := []string{}
			for _, r := range rs {
				if r.Status == RestoreFailed {
					failed = true
				}
				msg = append(msg, r.Path+": "+r.Status)
			}
			rb.Restores = append(rb.Restores, rs...)
			if err := jf.append(Entry{Seq: j.Writes[w].Begin.Seq, State: StateRestored, Time: stamp(opt.now()), Message: strings.Join(msg, "; ")}); err != nil {
				jf.close()
				return stop(w-1, err)
			}
		}
		if !failed {
			if err := jf.append(Entry{State: StateRolledBack, Time: stamp(opt.now())}); err != nil {
				jf.close()
				return stop(-1, err)
			}
		}
		jf.close()
		res.Journals = append(res.Journals, rb)
	}
	return res, nil
}

// restoreOne undoes one write, once its paths are of the kinds dbhost
// writes (checkEntry): a refused entry is listed, nothing written for it.
func restoreOne(j *Journal, w *Write, sys Sys, opt Options, step func()) []Restore {
	if err := checkEntry(w.Begin, opt.cgroups); err != nil {
		return []Restore{refused(w.Begin, err)}
	}
	if change.Kind(w.Begin.Kind).Cgroup() {
		return restoreCgroup(j, w, sys, step)
	}
	if w.Begin.Kind == string(change.LibvirtDomain) {
		return []Restore{restoreLibvirt(w, opt, step)}
	}
	return restoreWrite(w, sys, opt, step)
}

// rollbackDamaged undoes the writes of a damaged journal that lie after
// its last damage, newest first, and lists the rest as not restored with
// their recorded old values. The journal is not written to.
func rollbackDamaged(j *Journal, rb *RolledBack, sys Sys, opt Options, step func()) {
	w := len(j.Writes) - 1
	for ; w >= 0 && j.Trusted(j.Writes[w]); w-- {
		rb.Restores = append(rb.Restores, restoreOne(j, j.Writes[w], sys, opt, step)...)
	}
	var un []Unrestored
	// A damage to the whole journal (or the legacy format) leaves no line verified.
	whole := j.Format != Format || j.Damage[0].Line == 0
	add := func(line int, b Entry, side []Watched, verified bool) {
		verified = verified && !whole
		u := Unrestored{Line: line, Kind: b.Kind, Setting: b.Key, Path: b.Path, Old: b.Old, OldAbsent: b.OldAbsent, Side: side, Verified: verified}
		if side == nil {
			u.Side = b.Watch
		}
		if b.Kind != kindFile {
			u.Old = Value(b.Old)
		}
		un = append(un, u)
	}
	// Newest first, as the rollback would have met them: the damaged lines
	// that read as writes (unverified) among the verified writes.
	dmg := len(j.Damage) - 1
	for w >= 0 || dmg >= 0 {
		if dmg >= 0 && (w < 0 || j.Damage[dmg].Line > j.Writes[w].Line) {
			d := j.Damage[dmg]
			switch {
			case d.Line == 0 || d.Line > j.lines:
			case d.Entry == nil:
				un = append(un, Unrestored{Line: d.Line, Unreadable: true})
			case d.Entry.State == StateBegin && d.Entry.Path != "":
				add(d.Line, *d.Entry, nil, false)
			}
			if d.Line > j.lines {
				rb.Lost = true
			}
			dmg--
			continue
		}
		add(j.Writes[w].Line, j.Writes[w].Begin, j.Writes[w].Side, true)
		w--
	}
	rb.NotRestored = un
}

// restoreWrite restores one write's old value, then its watched files.
func restoreWrite(w *Write, sys Sys, opt Options, step func()) []Restore {
	b := w.Begin
	var out []Restore
	if b.Kind == kindFile {
		out = append(out, restoreFile(b, opt, step))
	} else {
		r := restoreValueAt(b.Path, b.Old, sys, step)
		r.Setting = b.Key
		if r.Status != RestoreUnchanged && !Same(b.Path, r.Live, b.New) && w.State == StateDone {
			r.Message = strings.TrimPrefix(r.Message+"; ", "; ") + fmt.Sprintf("it was %q, not the applied %q: changed by something else since", r.Live, Value(b.New))
		}
		out = append(out, r)
	}
	for _, x := range b.Watch {
		out = append(out, restoreValueAt(x.Path, x.Old, sys, step))
	}
	return out
}

func restoreValueAt(p, old string, sys Sys, step func()) Restore {
	r := Restore{Path: p, Old: Value(old)}
	live, err := sys.Read(p)
	if err != nil {
		r.Status, r.Message = RestoreFailed, "cannot read: "+writeReason(err)
		return r
	}
	r.Live = Value(live)
	// A tree's file gets back the journal's old bytes exactly (a write
	// torn by a crash may have left it empty, its newline lost); a kernel
	// file the value, which the kernel prints its own way.
	raw, exact := sys.(rawWriter)
	if exact {
		raw.RemoveTemps(p) // a write killed between its temporary file and the rename
	}
	same := func(now string) bool {
		if exact {
			return now == old
		}
		return Same(p, now, old)
	}
	if same(live) {
		r.Status = RestoreUnchanged
		return r
	}
	if exact {
		err = raw.WriteRaw(p, old)
	} else {
		err = sys.Write(p, restoreValue(old))
	}
	step()
	if err != nil {
		r.Status, r.Message = RestoreFailed, fmt.Sprintf("write %q: %s", restoreValue(old), writeReason(err))
		return r
	}
	back, err := sys.Read(p)
	switch {
	case err != nil:
		r.Status, r.Message = RestoreFailed, "read back: "+writeReason(err)
	case !same(back):
		r.Status, r.Message = RestoreFailed, fmt.Sprintf("the kernel accepted %q but kept %q", r.Old, Value(back))
	default:
		r.Status = RestoreDone
	}
	return r
}

func restoreFile(b Entry, opt Options, step func()) Restore {
	r := Restore{Path: b.Path, Setting: b.Key}
	// A crash inside writeManaged leaves its temporary file: remove it.
	removeManagedTemps(opt.Root, b.Path)
	cur, err := readManaged(opt.Root, b.Path)
	exists := err == nil
	if err != nil && !isNotExist(err) {
		r.Status, r.Message = RestoreFailed, "cannot read: "+writeReason(err)
		return r
	}
	r.Live = "(absent)"
	if exists {
		r.Live = fmt.Sprintf("%d bytes", len(cur))
	}
	if b.OldAbsent {
		r.Old = "(absent)"
		if !exists {
			r.Status = RestoreUnchanged
			return r
		}
		err = removeManaged(opt.Root, b.Path)
		step()
		if err != nil {
			r.Status, r.Message = RestoreFailed, "remove: "+writeReason(err)
			return r
		}
		r.Status = RestoreRemoved
		return r
	}
	r.Old = fmt.Sprintf("%d bytes", len(b.Old))
	if exists && cur == b.Old {
		r.Status = RestoreUnchanged
		return r
	}
	err = writeManaged(opt.Root, b.Path, b.Old)
	step()
	if err != nil {
		r.Status, r.Message = RestoreFailed, "write: "+writeReason(err)
		return r
	}
	r.Status = RestoreDone
	return r
}

// notRestored lists a write's values (its own and the ones the kernel
// changed with it) as not restored, because of err.
func notRestored(w *Write, err error) []Restore {
	b := w.Begin
	r := Restore{Path: b.Path, Setting: b.Key, Old: Value(b.Old), Live: "(not read)", Status: RestoreFailed,
		Message: fmt.Sprintf("NOT restored: the rollback stopped (%v); run rollback again once that is fixed", err)}
	if b.Kind == kindFile || b.Kind == string(change.LibvirtDomain) {
		r.Old = fmt.Sprintf("%d bytes", len(b.Old))
		if b.OldAbsent {
			r.Old = "(absent)"
		}
	}
	out := []Restore{r}
	for _, x := range b.Watch {
		out = append(out, Restore{Path: x.Path, Old: Value(x.Old), Live: "(not read)", Status: RestoreFailed, Message: r.Message})
	}
	return out
}

func rootName(dir string) string {
	if dir == "" || dir == "/" {
		return "this host"
	}
	return "the tree " + dir
}

// refused is the restore of a journal entry checkEntry refused: nothing
// is written for it, and the rollback fails (the journal stays open).
func refused(b Entry, err error) Restore {
	r := Restore{Path: b.Path, Setting: b.Key, Old: Value(b.Old), Live: "(not read)", Status: RestoreFailed}
	if b.Kind == kindFile {
		r.Old = fmt.Sprintf("%d bytes", len(b.Old))
	}
	r.Message = fmt.Sprintf("refused, not restored: the journal entry names a path dbhost never writes (%v); nothing was written for it", err)
	return r
}
