package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dbhost/dbhost/internal/jsonfmt"
	"io"
	"os"
	"strings"
)

// Marshal renders a snapshot as indented JSON with a trailing newline, arrays
// of scalars on one line (jsonfmt). The form is deterministic: Load followed
// by Marshal reproduces the bytes.
func Marshal(s *Snapshot) ([]byte, error) { return jsonfmt.Marshal(s) }

// InputError is bad input (a file that is not a snapshot): exit code 2.
type InputError struct {
	File string
	Msg  string
}

func (e *InputError) Error() string { return e.File + ": " + e.Msg }

// Load reads a snapshot written by Marshal. Unknown fields and other schema
// versions are refused with the reason, never half-read.
func Load(path string) (*Snapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot read: " + errors.Unwrap(err).Error()}
	}
	return Parse(path, b)
}

// Parse decodes snapshot JSON; name is used in error messages.
func Parse(name string, b []byte) (*Snapshot, error) {
	var head struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, &InputError{File: name, Msg: "not a dbhost snapshot: " + jsonErr(b, err)}
	}
	if head.SchemaVersion == nil {
		return nil, &InputError{File: name, Msg: "not a dbhost snapshot: no schema_version field"}
	}
	if *head.SchemaVersion != SchemaVersion {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("snapshot schema_version %d; this dbhost reads version %d", *head.SchemaVersion, SchemaVersion)}
	}
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, &InputError{File: name, Msg: "invalid snapshot: " + jsonErr(b, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &InputError{File: name, Msg: "invalid snapshot: data after the JSON object"}
	}
	return &s, nil
}

// jsonErr adds a line number to JSON syntax and type errors.
func jsonErr(b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		// Unknown fields carry no offset: find the first occurrence of the key.
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if i := bytes.Index(b, []byte(strings.Trim(name, `"`)+`":`)); i > 0 {
				off = int64(i)
			}
		}
	}
	if off < 0 || off > int64(len(b)) {
		return err.Error()
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	return fmt.Sprintf("line %d: %v", line, err)
}
