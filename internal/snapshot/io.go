package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/dbhost/dbhost/internal/input"
	"github.com/dbhost/dbhost/internal/jsonfmt"
)

// Marshal renders a snapshot as indented JSON with a trailing newline, arrays
// of scalars on one line (jsonfmt). The form is deterministic: Load followed
// by Marshal reproduces the bytes.
func Marshal(s *Snapshot) ([]byte, error) { return jsonfmt.Marshal(s) }

// InputError is bad input (a file that is not a snapshot, one over its
// size limit): exit code 2.
type InputError = input.Error

// Load reads a snapshot written by Marshal, of at most input.SnapshotBytes.
// Unknown fields and schema versions it cannot read are refused with the reason, never half-read; an
// older readable version comes back upgraded to SchemaVersion.
func Load(path string) (*Snapshot, error) {
	b, err := Read(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Read reads a snapshot file's bytes within input.SnapshotBytes; every
// error is an *InputError.
func Read(path string) ([]byte, error) {
	b, err := input.ReadFile(path, input.SnapshotBytes, "a snapshot")
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return nil, err
		}
		msg := err.Error()
		if u := errors.Unwrap(err); u != nil {
			msg = u.Error()
		}
		return nil, &InputError{File: path, Msg: "cannot read: " + msg}
	}
	return b, nil
}

// Parse decodes snapshot JSON; name is used in error messages.
func Parse(name string, b []byte) (*Snapshot, error) {
	var head struct {
		SchemaVersion *int `json:"schema_version"`
		Source        struct {
			Collector any `json:"collector"`
		} `json:"source"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, &InputError{File: name, Msg: "not a dbhost snapshot: " + jsonfmt.DecodeError(b, err)}
	}
	if head.SchemaVersion == nil {
		return nil, &InputError{File: name, Msg: "not a dbhost snapshot: no schema_version field"}
	}
	if v := *head.SchemaVersion; v < oldestReadable || v > SchemaVersion {
		msg := fmt.Sprintf("snapshot schema_version %d; this dbhost reads versions %d to %d", v, oldestReadable, SchemaVersion)
		if c, ok := head.Source.Collector.(string); ok && c != "" && v > SchemaVersion {
			msg += fmt.Sprintf(" (it was written by dbhost %s, a newer format: read it with that dbhost or a later one)", clip(c, 80))
		}
		return nil, &InputError{File: name, Msg: msg}
	}
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(&s)
	var unknown []string
	if err != nil && *head.SchemaVersion == SchemaVersion && strings.HasPrefix(err.Error(), "json: unknown field ") {
		// Fields a newer dbhost added (adding a field keeps the schema
		// version): read what this dbhost knows, and say what it skipped,
		// so that a fleet mid-upgrade still audits.
		if unknown = unknownFields(b, reflect.TypeFor[Snapshot]()); len(unknown) > 0 {
			s = Snapshot{}
			dec = json.NewDecoder(bytes.NewReader(b))
			err = dec.Decode(&s)
		}
	}
	if err != nil {
		return nil, &InputError{File: name, Msg: "invalid snapshot: " + jsonfmt.DecodeError(b, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &InputError{File: name, Msg: "invalid snapshot: data after the JSON object"}
	}
	// encoding/json keeps the last of two equal keys: a snapshot showing a
	// reader one sysctl value and giving the rules another is refused.
	// Exact keys only: a snapshot's maps are keyed by data (sysctl names,
	// interfaces) where case counts.
	if err := jsonfmt.CheckKeys(b, false); err != nil {
		return nil, &InputError{File: name, Msg: "invalid snapshot: " + err.Error()}
	}
	// Version 1 is version 2 with residency_us and disabled never null, and
	// version 2 is version 3 without databases[]: the same fields decode
	// unchanged, so the snapshot is upgraded in place.
	s.SchemaVersion = SchemaVersion
	if len(unknown) > 0 {
		s.Absent = append(s.Absent, unknownAbsence(name, s.Source.Collector, unknown))
	}
	return &s, nil
}

// unknownAbsence is the note a snapshot with fields this dbhost does not
// know carries: which fields were skipped and which dbhost wrote them.
func unknownAbsence(name, collector string, fields []string) Absence {
	const show, long = 8, 80 // the keys and the collector are the file's text: bounded
	list := make([]string, 0, show)
	for _, f := range fields[:min(len(fields), show)] {
		list = append(list, clip(f, long))
	}
	more := ""
	if n := len(fields) - len(list); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	by := "a newer dbhost"
	if collector != "" {
		by = "dbhost " + clip(collector, long)
	}
	return Absence{Fact: "snapshot.fields", Path: name, Reason: fmt.Sprintf(
		"written by %s: %d field(s) this dbhost does not know were not read (%s%s); upgrade dbhost to judge them",
		by, len(fields), strings.Join(list, ", "), more)}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
