package artifacts

import (
	"bytes"
	"errors"

	"github.com/dbhost/dbhost/internal/facts"
)

// ParseCgconfig parses a cgconfig.conf with the facts package's parser (the
// same one the collector uses for /etc/cgconfig.conf). Like cgconfigparser,
// a syntax error rejects the whole file: the result then has no entries and
// one *Error with the line.
func ParseCgconfig(b []byte) (*Cgconfig, []error) {
	c := &Cgconfig{}
	es, err := facts.ParseCgconfig(bytes.NewReader(b))
	if err != nil {
		return c, factsErrors(err)
	}
	c.Entries = es
	return c, nil
}

// factsErrors is a facts parser's error as an artifact's error list (the
// line kept).
func factsErrors(err error) []error {
	var pe *facts.ParseError
	if errors.As(err, &pe) {
		return []error{errAt(pe.Line, "%s", pe.Msg)}
	}
	return []error{errAt(0, "%v", err)}
}
