package apply

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/input"
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

// Journal formats. Format 2 journals carry a checksum chain and a head
// file; format 1 journals (written before checksums: no "format" in the
// start entry, no "sum" on any line) are still read, as legacy: their
// integrity can never be verified, and every reader says so.
const (
	FormatLegacy = 1
	Format       = 2
)

// Entry is one line of a journal. In format 2 each line ends with a "sum"
// member (see encodeLine), which is not a field here.
type Entry struct {
	Seq   int    `json:"seq"`
	State string `json:"state"`
	Time  string `json:"time,omitempty"`
	// Header (state start).
	Format  int    `json:"format,omitempty"`
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
	Line    int       // the begin entry's line in the file, from 1
}

// Damage is a place where a journal cannot be trusted: a line that is not
// readable, fails its checksum, breaks the chain (a line dropped, moved or
// repeated before it), or contradicts the lines before it; or a cut (the
// file is shorter than its head file records).
type Damage struct {
	// Line is the damaged line, from 1; for a cut, the first line lost; 0
	// for the whole journal (checksums stripped, format contradicted).
	Line   int    `json:"line"`
	Reason string `json:"reason"`
	// Entry is what the line holds when it parses as an entry: unverified.
	Entry *Entry `json:"entry,omitempty"`
}

func (d Damage) String() string {
	if d.Line == 0 {
		return "the whole journal: " + d.Reason
	}
	return fmt.Sprintf("line %d: %s", d.Line, d.Reason)
}

// Journal is one apply run read back from its file.
type Journal struct {
	ID     string
	Path   string
	Format int // FormatLegacy or Format
	Header Entry
	// Writes are the verified begin entries (legacy: the readable ones)
	// with their outcomes, in file order.
	Writes     []*Write
	Pending    []Entry
	Ended      bool // the run finished
	RolledBack bool
	// Torn is true when the bytes after the last complete line are an
	// incomplete entry (a crash while it was written); they are ignored.
	Torn bool
	// Damage lists every place the journal cannot be trusted, in line
	// order. Rollback stops at the last one; verify reports them.
	Damage []Damage

	lines          int      // complete lines (a torn tail is not one)
	rolledBackLine int      // the line of the last rolled-back mark
	sums           []string // each complete line's recorded sum (format 2)
	keep           int64    // bytes of the complete lines: a torn tail starts there
	mend           bool     // the last complete line lost only its newline
	state, rel     string   // LoadJournal: the state directory, the file in it
}

// Empty reports whether the journal holds no complete line (an apply
// killed while writing its first entry): nothing to restore.
func (j *Journal) Empty() bool { return j.lines == 0 && !j.Damaged() }

// Damaged reports whether the journal cannot be trusted as a whole.
func (j *Journal) Damaged() bool { return len(j.Damage) > 0 }

// Trusted reports whether write w can be acted on: it lies after the last
// damage (a rollback undoing newest first has not met any damage yet), and
// no damage concerns the whole journal.
func (j *Journal) Trusted(w *Write) bool {
	if len(j.Damage) == 0 {
		return true
	}
	if j.Damage[0].Line == 0 {
		return false
	}
	return w.Line > j.Damage[len(j.Damage)-1].Line
}

// markTrusted reports whether the journal's rolled-back mark lies after
// its last damage: the rollback it records finished.
func (j *Journal) markTrusted() bool {
	return j.rolledBackLine > 0 && j.Trusted(&Write{Line: j.rolledBackLine})
}

// Time of the run, from its header (zero when unknown).
func (j *Journal) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, j.Header.Time)
	return t
}

// The checksum of a format-2 line: SHA-256 over the previous line's sum
// (chainSeed for the first line), a newline and the line's body (the entry
// as JSON without its sum member). A line is written as the body with
// `,"sum":"<64 hex>"` inserted before its closing brace.
const (
	chainSeed = "dbhost journal format 2"
	sumMember = `,"sum":"`
	sumLen    = 64
)

func lineSum(prev string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write([]byte("\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// encodeLine is the line (without newline) of an entry following prev.
func encodeLine(e Entry, prev string) (line []byte, sum string, err error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, "", err
	}
	sum = lineSum(prev, body)
	line = append(append(append(append([]byte{}, body[:len(body)-1]...), sumMember...), sum...), '"', '}')
	return line, sum, nil
}

// splitSum cuts a format-2 line into its body and recorded sum; ok is
// false when the line does not end with a sum member.
func splitSum(line []byte) (body []byte, sum string, ok bool) {
	n := len(line)
	tail := len(sumMember) + sumLen + 2
	if n < tail+2 || line[n-1] != '}' || line[n-2] != '"' || !bytes.Equal(line[n-tail:n-tail+len(sumMember)], []byte(sumMember)) {
		return nil, "", false
	}
	sum = string(line[n-2-sumLen : n-2])
	for _, c := range sum {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return nil, "", false
		}
	}
	body = append(append([]byte{}, line[:n-tail]...), '}')
	return body, sum, true
}

// ParseJournal reads a journal's lines. Format 2 lines are verified
// against the checksum chain; a line that fails, is unreadable, or
// contradicts the lines before it is Damage (its content is not used).
// The bytes after the last newline are a tail torn by a crash and are
// ignored (Torn), unless they are a whole entry that only lost its newline.
// Whether lines were cut off the end is for the head file to say
// (LoadJournal). No input panics (FuzzParseJournal).
func ParseJournal(data []byte) *Journal {
	j := &Journal{Format: FormatLegacy}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	// The format: 2 when any complete line carries a sum (a legacy journal
	// has none); a torn tail decides only when it is all there is.
	for i, l := range lines {
		if !bytes.HasSuffix(l, []byte("\n")) && i > 0 {
			break
		}
		if _, _, ok := splitSum(bytes.TrimRight(l, "\r\n")); ok {
			j.Format = Format
			break
		}
	}
	st := &parseState{j: j, bySeq: map[int]*Write{}}
	prev := chainSeed
	var off int64
	for i, raw := range lines {
		n := i + 1
		complete := bytes.HasSuffix(raw, []byte("\n"))
		line := bytes.TrimSuffix(raw, []byte("\n"))
		var body []byte
		var e Entry
		var problem string
		if j.Format == Format {
			b, sum, ok := splitSum(line)
			switch {
			case !ok:
				problem = "no checksum (expected a \"sum\" member at the end of the line)"
				prev = ""
			case sum != lineSum(prev, b):
				problem = "checksum mismatch: the line was altered, or a line before it is missing, moved or repeated"
				prev = sum
			default:
				prev = sum
			}
			body = b
			if body == nil {
				body = line
			}
			if ok {
				j.sums = append(j.sums, sum)
			} else {
				j.sums = append(j.sums, "")
			}
		} else {
			body = line
		}
		perr := json.Unmarshal(body, &e)
		if perr != nil || e.State == "" {
			if problem == "" {
				problem = "not a journal entry"
			}
		}
		if !complete {
			// The tail after the last newline: a crash tore it, unless it is
			// a whole entry that only lost its newline.
			if problem != "" {
				j.Torn = true
				if j.Format == Format {
					j.sums = j.sums[:len(j.sums)-1]
				}
				break
			}
			j.mend = true
		}
		off += int64(len(raw))
		j.keep = off
		j.lines = n
		if problem != "" {
			d := Damage{Line: n, Reason: problem}
			if perr == nil && e.State != "" {
				d.Entry = &e
			}
			j.Damage = append(j.Damage, d)
			continue
		}
		if msg := st.add(n, e); msg != "" {
			j.Damage = append(j.Damage, Damage{Line: n, Reason: msg, Entry: &e})
		}
	}
	if !st.started && j.lines > 0 {
		j.addDamage(Damage{Line: 0, Reason: "no verified start entry: which host and run the journal belongs to is unknown"})
	}
	if st.started {
		switch {
		case j.Format == Format && j.Header.Format != Format:
			j.addDamage(Damage{Line: 0, Reason: fmt.Sprintf("the start entry says format %d, its lines carry checksums (format %d)", j.Header.Format, Format)})
		case j.Format == FormatLegacy && j.Header.Format >= Format:
			j.addDamage(Damage{Line: 0, Reason: fmt.Sprintf("the start entry says format %d, but no line carries a checksum: they were stripped", j.Header.Format)})
		}
	}
	return j
}

// addDamage records a damage, keeping the list in line order.
func (j *Journal) addDamage(d Damage) {
	j.Damage = append(j.Damage, d)
	sort.SliceStable(j.Damage, func(a, b int) bool { return j.Damage[a].Line < j.Damage[b].Line })
}

// parseState applies verified entries to a Journal, checking that they
// follow each other as an apply and its rollbacks write them.
type parseState struct {
	j       *Journal
	bySeq   map[int]*Write
	lastSeq int
	started bool
}

// add applies entry e of line n; a non-empty result is why it contradicts
// the lines before it (the entry is then not used).
func (st *parseState) add(n int, e Entry) string {
	j := st.j
	if !st.started && e.State != StateStart {
		return fmt.Sprintf("a %q entry before the start entry", e.State)
	}
	switch e.State {
	case StateStart:
		if st.started || n != 1 {
			return "a second start entry, or the start entry not on line 1"
		}
		if e.Format > Format {
			return fmt.Sprintf("journal format %d is newer than this dbhost reads (%d): use a newer dbhost", e.Format, Format)
		}
		st.started = true
		j.Header = e
		j.ID = e.ID
	case StateBegin:
		if j.Ended {
			return fmt.Sprintf("a write (seq %d) after the end entry", e.Seq)
		}
		if e.Path == "" || e.Seq <= st.lastSeq {
			return fmt.Sprintf("begin of seq %d without a path, repeated, or out of order (after seq %d)", e.Seq, st.lastSeq)
		}
		st.lastSeq = e.Seq
		w := &Write{Begin: e, State: StateBegin, Line: n}
		st.bySeq[e.Seq] = w
		j.Writes = append(j.Writes, w)
	case StateDone, StateFailed:
		w := st.bySeq[e.Seq]
		if w == nil || w.State != StateBegin {
			return fmt.Sprintf("outcome of seq %d, which has no begin entry before it or already has an outcome", e.Seq)
		}
		w.State, w.Outcome = e.State, e
	case StateSide:
		w := st.bySeq[e.Seq]
		if w == nil || w.State != StateBegin || w.Side != nil {
			return fmt.Sprintf("side effects of seq %d, which has no open begin entry before it", e.Seq)
		}
		w.Side = e.Watch
	case StatePending:
		j.Pending = append(j.Pending, e)
	case StateEnd:
		if j.Ended {
			return "a second end entry"
		}
		j.Ended = true
	case StateRollback:
		j.RolledBack = false
	case StateRolledBack:
		j.RolledBack = true
		j.rolledBackLine = n
	case StateRestored:
	default:
		return fmt.Sprintf("unknown state %q", e.State)
	}
	return ""
}

// A format-2 journal's head file records its number of complete lines
// and the last one's sum. It is one fixed-length record rewritten in place
// (a single write of under 512 bytes at offset 0: one sector, never torn)
// and fdatasync'ed after every line; a journal holding fewer lines than its
// head records was cut.
const headFormat = "dbhost journal head: lines %010d sum %s\n"

type head struct {
	Lines int
	Sum   string
}

func (h head) record() []byte { return []byte(fmt.Sprintf(headFormat, h.Lines, h.Sum)) }

// parseHead reads a head record; ok is false when it is not one.
func parseHead(b []byte) (h head, ok bool) {
	f := strings.Fields(string(b))
	if len(f) != 7 || strings.Join(f[:4], " ") != "dbhost journal head: lines" || f[5] != "sum" || len(f[6]) != sumLen {
		return h, false
	}
	n, err := strconv.Atoi(f[4])
	if err != nil || n < 1 {
		return h, false
	}
	return head{Lines: n, Sum: f[6]}, true
}

// checkHead compares a format-2 journal with its head file (b, or err when
// it could not be read) and records a cut or a mismatch as Damage.
func (j *Journal) checkHead(b []byte, err error) {
	n := j.lines
	if j.Format != Format {
		if err == nil {
			j.addDamage(Damage{Line: 0, Reason: "a head file exists but no line carries a checksum: the checksums were stripped"})
		}
		return
	}
	cut := func(reason string) { j.addDamage(Damage{Line: n + 1, Reason: reason}) }
	if err != nil || len(b) == 0 {
		// No head yet: a crash before the first line's head was written.
		if n > 1 {
			why := "it is empty"
			if err != nil {
				why = facts.Reason(err)
			}
			cut("its head file cannot be read (" + why + "): whether lines were cut off the end cannot be checked")
		}
		return
	}
	h, ok := parseHead(b)
	if !ok {
		cut("its head file is not readable: whether lines were cut off the end cannot be checked")
		return
	}
	switch {
	case n < h.Lines:
		cut(fmt.Sprintf("cut: the head file records %d lines, the file holds %d: the entries after line %d are lost", h.Lines, n, n))
	case j.sums[h.Lines-1] != h.Sum:
		cut(fmt.Sprintf("line %d is not the line the head file records: lines were replaced", h.Lines))
	case n > h.Lines+1:
		cut(fmt.Sprintf("the file holds %d lines, its head file records %d: lines were added by something else", n, h.Lines))
	}
}

// journalDir is where the journals of a state directory live.
func journalDir(stateDir string) string { return filepath.Join(stateDir, "journal") }

const journalExt = ".jsonl"

// NewID returns a time-ordered journal id (its names sort as the runs ran).
func NewID(t time.Time) string { return t.UTC().Format("20060102T150405.000000000Z") }

// journalSub is the journals' directory inside the state directory.
const journalSub = "journal"

// ListJournals returns the journal ids of a state directory, oldest first.
// A head file whose journal is gone names one too: dbhost never removes a
// journal, so its values were lost, and LoadJournal says so. A journal/
// that is a link, or a journal or head file that is not a regular file of
// its own (a link, a FIFO, a hard link), is a *StateError: refused before
// anything is read or written.
func ListJournals(stateDir string) ([]string, error) {
	s, err := openState(stateDir)
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer s.close()
	ents, err := s.readDir(journalSub)
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	seen := map[string]bool{}
	for _, e := range ents {
		n, ok := strings.CutSuffix(e.Name(), journalExt)
		if !ok {
			n, ok = strings.CutSuffix(e.Name(), headExt)
		}
		if !ok {
			continue
		}
		if _, err := s.lstatChain(journalSub+"/"+e.Name(), false); err != nil {
			return nil, withPath(err, s.host(journalSub+"/"+e.Name()))
		}
		seen[n] = true
	}
	var ids []string
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// LoadJournal reads one journal by id (its files opened as the state
// directory's entries are: see state.go).
func LoadJournal(stateDir, id string) (*Journal, error) {
	if id == "" || strings.ContainsAny(id, "/\\") || id == "." || id == ".." {
		return nil, fmt.Errorf("bad journal id %q", id)
	}
	s, err := openState(stateDir)
	if err != nil {
		return nil, err
	}
	defer s.close()
	rel := journalSub + "/" + id + journalExt
	p := s.host(rel)
	b, err := s.readFile(rel, input.JournalBytes, "a journal")
	hb, herr := s.readFile(headPath(rel), headBytes, "a journal head")
	var se *StateError
	if errors.As(herr, &se) {
		return nil, herr
	}
	missing := isNotExist(err) && herr == nil
	if err != nil && !missing {
		return nil, err
	}
	j := ParseJournal(b)
	j.Path = p
	j.state, j.rel = stateDir, rel
	if missing {
		// Its head file says an apply ran and wrote lines: whatever they
		// recorded is lost (checkHead says how many).
		j.addDamage(Damage{Line: 0, Reason: "the journal file is missing, its head file remains: every entry it held is lost"})
	}
	if herr == nil && j.lines == 0 {
		j.Format = Format // a head file: format 2, cut before its first newline
	}
	j.checkHead(hb, herr)
	if j.ID == "" {
		j.ID = id
	}
	return j, nil
}

// headBytes bounds a head file (one line of about 100 bytes).
const headBytes = 4096

const headExt = ".head"

// headPath is a journal's head file.
func headPath(journal string) string { return strings.TrimSuffix(journal, journalExt) + headExt }

// journalFile appends fsync'ed entries to one journal (format 2: each
// line chained to the one before, the head file replaced after it).
type journalFile struct {
	f      *os.File
	hook   func()
	format int
	prev   string   // the last line's sum
	lines  int      // complete lines
	head   *os.File // the head file (format 2)
}

// createJournal creates a new journal file (never overwriting one) and
// fsyncs its directory so the file survives a power loss. The journal
// directory and the files are the state directory's entries (state.go).
func createJournal(stateDir string, now time.Time) (*journalFile, string, error) {
	dir := journalDir(stateDir)
	if err := confine.CheckFault("mkdir", dir); err != nil {
		return nil, "", err
	}
	if err := checkStateDir(stateDir); err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, "", err
	}
	s, err := openState(stateDir)
	if err != nil {
		return nil, "", err
	}
	defer s.close()
	if err := s.mkdir(journalSub); err != nil {
		return nil, "", err
	}
	// Ids must sort in run order even if the clock went back since the last run.
	ids, err := ListJournals(stateDir)
	if err != nil {
		return nil, "", err
	}
	if len(ids) > 0 {
		if last, err := time.Parse("20060102T150405.000000000Z", ids[len(ids)-1]); err == nil && !now.After(last) {
			now = last.Add(time.Microsecond)
		}
	}
	for i := 0; ; i++ {
		id := NewID(now.Add(time.Duration(i)))
		rel := journalSub + "/" + id + journalExt
		p := s.host(rel)
		if err := confine.CheckFault("create", p); err != nil {
			return nil, "", err
		}
		f, err := s.d.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if errors.Is(err, fs.ErrExist) && i < 1000 {
			continue
		}
		if err != nil {
			return nil, "", withPath(err, p)
		}
		err = confine.CheckFault("create", headPath(p))
		var h *os.File
		if err == nil {
			h, err = s.open(headPath(rel), os.O_RDWR|os.O_CREATE, 0o600)
		}
		if err == nil {
			err = h.Truncate(0)
		}
		if err != nil {
			f.Close()
			if h != nil {
				h.Close()
			}
			return nil, "", err
		}
		if err := s.d.SyncDir(journalSub); err != nil {
			f.Close()
			h.Close()
			return nil, "", withPath(err, dir)
		}
		return &journalFile{f: f, format: Format, prev: chainSeed, head: h}, id, nil
	}
}

// openJournal opens a journal read by LoadJournal for appending; it must
// not be damaged (a damaged journal is never written to). A torn tail (a
// crash while it was written) is cut off first, so that new entries do not
// run into it; a whole last entry that lost its newline gets it back.
func openJournal(j *Journal) (*journalFile, error) {
	if j.Damaged() {
		return nil, fmt.Errorf("journal %s is damaged: not written to", j.ID)
	}
	if err := confine.CheckFault("open", j.Path); err != nil {
		return nil, err
	}
	dir, rel := j.state, j.rel
	if dir == "" {
		// Not read by LoadJournal: the file beside its head, where Path says.
		dir, rel = filepath.Dir(j.Path), filepath.Base(j.Path)
	}
	s, err := openState(dir)
	if err != nil {
		return nil, err
	}
	defer s.close()
	f, err := s.open(rel, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := confine.CheckFault("truncate", j.Path); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Truncate(j.keep); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(j.keep, 0); err != nil {
		f.Close()
		return nil, err
	}
	if j.mend {
		err := confine.CheckFault("write", j.Path)
		if err == nil {
			_, err = f.Write([]byte("\n"))
		}
		if err != nil {
			f.Close()
			return nil, err
		}
	}
	jf := &journalFile{f: f, format: j.Format}
	if j.Format == Format {
		jf.prev, jf.lines = chainSeed, j.lines
		if j.lines > 0 {
			jf.prev = j.sums[j.lines-1]
		}
		if err = confine.CheckFault("open", headPath(j.Path)); err == nil {
			jf.head, err = s.open(headPath(rel), os.O_RDWR|os.O_CREATE, 0o600)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
	}
	return jf, nil
}

// append writes one entry as a line and fsyncs it; then (format 2) the
// head file records the new line count.
func (j *journalFile) append(e Entry) error {
	var b []byte
	var sum string
	var err error
	if j.format == Format {
		b, sum, err = encodeLine(e, j.prev)
	} else {
		b, err = json.Marshal(e)
	}
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := confine.CheckFault("write", j.f.Name()); err != nil {
		j.f.Write(b[:len(b)/2]) // a short write, as a full disk leaves it
		return err
	}
	if _, err := j.f.Write(b); err != nil {
		return err
	}
	if err := confine.CheckFault("fsync", j.f.Name()); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	if j.format == Format {
		// A crash before the head is written leaves it one line behind,
		// which the reader accepts.
		j.prev = sum
		j.lines++
		if err := confine.CheckFault("write", j.head.Name()); err != nil {
			return err
		}
		if _, err := j.head.WriteAt(head{Lines: j.lines, Sum: sum}.record(), 0); err != nil {
			return err
		}
		if err := confine.CheckFault("fsync", j.head.Name()); err != nil {
			return err
		}
		if err := datasync(j.head); err != nil {
			return err
		}
	}
	if j.hook != nil {
		j.hook()
	}
	return nil
}

func (j *journalFile) close() error {
	if j.head != nil {
		j.head.Close()
	}
	return j.f.Close()
}
