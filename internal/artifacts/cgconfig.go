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
		var pe *facts.ParseError
		if errors.As(err, &pe) {
			return c, []error{errAt(pe.Line, "%s", pe.Msg)}
		}
		return c, []error{errAt(0, "%v", err)}
	}
	c.Entries = es
	return c, nil
}
