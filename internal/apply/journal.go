package apply

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Journal entry states.
const (
	StateStart      = "start"       // first line: the run's header
	StateBegin      = "begin"       // before a write: old and new value, fsync'ed
	StateDone       = "done"        // after the write: the read-back equals the new value
	StateFailed     = "failed"      // the write failed, or the kernel did not keep the value
	StateSide       = "side"        // values the kernel changed on its own with the write
	StatePending    = "pending"     // a boot argument: not written, pending reboot
	StateEnd        = "end"         // the run finished (every write attempted)
	StateRollback   = "rollback"    // a rollback started
	StateRestored   = "restored"    // one write undone (or found already at its old value)
	StateRolledBack = "rolled-back" // every write undone
)

// Kinds of journaled writes (besides change.Sysctl and change.Sysfs).
const kindFile = "file" // a whole configuration file (limits.d), old content or absent

// Entry is one line of a journal.
type Entry struct {
	Seq   int    `json:"seq"`
	State string `json:"state"`
	Time  string `json:"time,omitempty"`
	// Header (state start).
	ID      string `json:"id,omitempty"`
	Root    string `json:"root,omitempty"`
	Version string `json:"version,omitempty"`
	Plan    string `json:"plan,omitempty"`
	// A write (state begin).
	Kind      string `json:"kind,omitempty"`
	Key       string `json:"key,omitempty"`
	Path      string `json:"path,omitempty"`
	Old       string `json:"old,omitempty"`
	OldAbsent bool   `json:"old_absent,omitempty"` // a file that did not exist
	New       string `json:"new,omitempty"`
	Rule      string `json:"rule,omitempty"`
	// Watch are the files the kernel may change with this write, read before it.
	Watch []Watched `json:"watch,omitempty"`
	// Outcome (done, failed, side, restored).
	Readback string `json:"readback,omitempty"`
	Error    string `json:"error,omitempty"`
	Message  string `json:"message,omitempty"`
}

// Watched is a file read before a write (Old) and, in a side entry, after it (New).
type Watched struct {
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new,omitempty"`
}

// Write is one journaled write with its outcome.
type Write struct {
	Begin   Entry
	State   string // begin (no outcome recorded: crashed), done, failed
	Outcome Entry
	Side    []Watched // values the kernel changed on its own (from the side entry)
}

// Journal is one apply run read back from its file.
type Journal struct {
	ID         string
	Path       string
	Header     Entry
	Writes     []*Write
	Pending    []Entry
	Ended      bool // the run finished
	RolledBack bool
	// Torn is true when the last line was incomplete (a crash while writing it);
	// it is ignored.
	Torn bool
	// Warnings lists lines that could not be read (never the torn last line).
	Warnings []string
}

// Time of the run, from its header (zero when unknown).
func (j *Journal) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, j.Header.Time)
	return t
}

// ParseJournal reads a journal's JSON lines. An incomplete final line (no
// newline, or not JSON) is a write torn by a crash and is ignored; an
// unreadable line elsewhere is skipped with a warning; no entry before
// either is lost.
func ParseJournal(data []byte) *Journal {
	j := &Journal{}
	bySeq := map[int]*Write{}
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		last := i == len(lines)-1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil || e.State == "" {
			if last {
				j.Torn = true
				continue
			}
			j.Warnings = append(j.Warnings, fmt.Sprintf("line %d: unreadable entry skipped", i+1))
			continue
		}
		if last {
			// Complete JSON but no newline: the newline was torn off. Keep it.
			j.Torn = true
		}
		switch e.State {
		case StateStart:
			j.Header = e
			j.ID = e.ID
		case StateBegin:
			if _, dup := bySeq[e.Seq]; dup || e.Path == "" {
				j.Warnings = append(j.Warnings, fmt.Sprintf("line %d: begin of seq %d repeated or without a path: skipped", i+1, e.Seq))
				continue
			}
			w := &Write{Begin: e, State: StateBegin}
			bySeq[e.Seq] = w
			j.Writes = append(j.Writes, w)
		case StateDone, StateFailed:
			if w := bySeq[e.Seq]; w != nil {
				w.State, w.Outcome = e.State, e
			} else {
				j.Warnings = append(j.Warnings, fmt.Sprintf("line %d: outcome of unknown seq %d", i+1, e.Seq))
			}
		case StateSide:
			if w := bySeq[e.Seq]; w != nil {
				w.Side = e.Watch
			}
		case StatePending:
			j.Pending = append(j.Pending, e)
		case StateEnd:
			j.Ended = true
		case StateRollback:
			j.RolledBack = false
		case StateRolledBack:
			j.RolledBack = true
		case StateRestored:
		default:
			j.Warnings = append(j.Warnings, fmt.Sprintf("line %d: unknown state %q", i+1, e.State))
		}
	}
	sort.SliceStable(j.Writes, func(a, b int) bool { return j.Writes[a].Begin.Seq < j.Writes[b].Begin.Seq })
	return j
}

// journalDir is where the journals of a state directory live.
func journalDir(stateDir string) string { return filepath.Join(stateDir, "journal") }

const journalExt = ".jsonl"

// NewID returns a time-ordered journal id (its names sort as the runs ran).
func NewID(t time.Time) string { return t.UTC().Format("20060102T150405.000000000Z") }

// ListJournals returns the journal ids of a state directory, oldest first.
func ListJournals(stateDir string) ([]string, error) {
	ents, err := os.ReadDir(journalDir(stateDir))
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), journalExt); ok && e.Type().IsRegular() {
			ids = append(ids, n)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// LoadJournal reads one journal by id.
func LoadJournal(stateDir, id string) (*Journal, error) {
	if id == "" || strings.ContainsAny(id, "/\\") || id == "." || id == ".." {
		return nil, fmt.Errorf("bad journal id %q", id)
	}
	p := filepath.Join(journalDir(stateDir), id+journalExt)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	j := ParseJournal(b)
	j.Path = p
	if j.ID == "" {
		j.ID = id
	}
	return j, nil
}

// journalFile appends fsync'ed entries to one journal.
type journalFile struct {
	f    *os.File
	hook func()
}

// createJournal creates a new journal file (never overwriting one) and
// fsyncs its directory so the file survives a power loss.
func createJournal(stateDir string, now time.Time) (*journalFile, string, error) {
	dir := journalDir(stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", err
	}
	// Ids must sort in run order even if the clock went back since the last run.
	if ids, _ := ListJournals(stateDir); len(ids) > 0 {
		if last, err := time.Parse("20060102T150405.000000000Z", ids[len(ids)-1]); err == nil && !now.After(last) {
			now = last.Add(time.Microsecond)
		}
	}
	for i := 0; ; i++ {
		id := NewID(now.Add(time.Duration(i)))
		f, err := os.OpenFile(filepath.Join(dir, id+journalExt), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if os.IsExist(err) && i < 1000 {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		if err := syncDir(dir); err != nil {
			f.Close()
			return nil, "", err
		}
		return &journalFile{f: f}, id, nil
	}
}

// openJournal opens an existing journal for appending. A torn last line
// (a crash while it was written) is cut off first, so that new entries do
// not run into it.
func openJournal(path string) (*journalFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	keep := int64(len(b))
	mend := false
	if len(b) > 0 && b[len(b)-1] != '\n' {
		start := bytes.LastIndexByte(b, '\n') + 1
		var e Entry
		if json.Unmarshal(b[start:], &e) == nil && e.State != "" {
			mend = true // a whole entry that lost its newline: keep it
		} else {
			keep = int64(start)
		}
	}
	if err := f.Truncate(keep); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(keep, 0); err != nil {
		f.Close()
		return nil, err
	}
	if mend {
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, err
		}
	}
	return &journalFile{f: f}, nil
}

// append writes one entry as a line and fsyncs it.
func (j *journalFile) append(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := j.f.Write(b); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	if j.hook != nil {
		j.hook()
	}
	return nil
}

func (j *journalFile) close() error { return j.f.Close() }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// writeFileAtomic replaces a file durably: temp file, fsync, rename, fsync dir.
func writeFileAtomic(path, content string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".dbhost-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// removeFileDurably removes a file and fsyncs its directory.
func removeFileDurably(path string) error {
	if err := os.Remove(path); err != nil && !isNotExist(err) {
		return err
	}
	return syncDir(filepath.Dir(path))
}
