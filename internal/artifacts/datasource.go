package artifacts

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/crash"
)

// Datasource is one JBoss/WildFly (IronJacamar) datasource, from a
// standalone.xml/domain.xml datasources subsystem or a *-ds.xml file
// (including the legacy JBoss AS 4-6 local-tx-datasource form). Settings
// absent from the XML are nil/empty: the server default applies.
type Datasource struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Element  string `json:"element"` // datasource | xa-datasource | local-tx-datasource | no-tx-datasource
	Legacy   bool   `json:"legacy"`  // JBoss AS 4-6 *-ds.xml form (jndi-name as an element)
	JNDIName string `json:"jndi_name,omitempty"`
	PoolName string `json:"pool_name,omitempty"`
	Enabled  *bool  `json:"enabled,omitempty"`

	ConnectionURL string `json:"connection_url,omitempty"`
	MinPoolSize   *int64 `json:"min_pool_size,omitempty"`
	MaxPoolSize   *int64 `json:"max_pool_size,omitempty"`

	ValidateOnMatch      *bool `json:"validate_on_match,omitempty"`
	BackgroundValidation *bool `json:"background_validation,omitempty"`
	// BackgroundValidationMillis is background-validation-millis, or the
	// legacy background-validation-minutes converted.
	BackgroundValidationMillis *int64 `json:"background_validation_millis,omitempty"`
	CheckValidConnectionSQL    string `json:"check_valid_connection_sql,omitempty"`
	ValidConnectionChecker     string `json:"valid_connection_checker,omitempty"` // class-name
	// Expressions holds settings written as ${property:default}: the field
	// above holds the default, this map the text as written (element → text).
	Expressions map[string]string `json:"expressions,omitempty"`
}

// HasValidation says whether any connection check is configured (SQL or checker class).
func (d *Datasource) HasValidation() bool {
	return d.CheckValidConnectionSQL != "" || d.ValidConnectionChecker != ""
}

// ValidatesOnBorrow says whether the pool validates a connection in the
// foreground each time the application borrows it (seed 002: a round trip
// per borrow). IronJacamar does so when validate-on-match is true (its
// default is false); the legacy JBoss AS 5 form defaulted validate-on-match
// to true when a check was configured and background validation was not on.
func (d *Datasource) ValidatesOnBorrow() bool {
	if d.ValidateOnMatch != nil {
		return *d.ValidateOnMatch
	}
	if d.Legacy && d.HasValidation() {
		return d.BackgroundValidation == nil || !*d.BackgroundValidation
	}
	return false
}

// ValidatesInBackground says whether background-validation is on.
func (d *Datasource) ValidatesInBackground() bool {
	return d.BackgroundValidation != nil && *d.BackgroundValidation
}

var dsElements = map[string]bool{"datasource": true, "xa-datasource": true, "local-tx-datasource": true, "no-tx-datasource": true}

// ParseDatasources parses every datasource in a datasource XML document
// (namespaces ignored). On malformed XML it returns the datasources read
// before the error and one *Error with the line.
func ParseDatasources(b []byte) ([]*Datasource, []error) {
	var out []*Datasource
	var el errList
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // ISO-8859-1 headers: read as is
	var cur *Datasource
	depth := 0 // element depth inside cur
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				line, _ := d.InputPos()
				var se *xml.SyntaxError
				msg := err.Error()
				if errors.As(err, &se) {
					line, msg = se.Line, se.Msg
				}
				el.add(errAt(line, "malformed XML: %s", msg))
			} else if cur != nil {
				line, _ := d.InputPos()
				el.add(errAt(line, "unexpected end of file inside <%s>", cur.Element))
			}
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if cur == nil {
				if dsElements[name] {
					line, _ := d.InputPos()
					cur = &Datasource{Line: line, Element: name, Legacy: name == "local-tx-datasource" || name == "no-tx-datasource"}
					depth = 0
					for _, a := range t.Attr {
						switch a.Name.Local {
						case "jndi-name":
							cur.JNDIName = a.Value
						case "pool-name":
							cur.PoolName = a.Value
						case "enabled":
							cur.Enabled = dsBool(cur, "enabled", a.Value)
							if cur.Enabled == nil {
								el.add(errAt(line, "enabled: expected true or false, got %q", trunc(a.Value, 40)))
							}
						}
					}
				}
				continue
			}
			depth++
			text.Reset()
			if name == "valid-connection-checker" {
				for _, a := range t.Attr {
					if a.Name.Local == "class-name" {
						cur.ValidConnectionChecker = a.Value
					}
				}
			}
		case xml.CharData:
			if cur != nil {
				text.Write(t)
			}
		case xml.EndElement:
			if cur == nil {
				continue
			}
			if depth == 0 {
				out = append(out, cur)
				cur = nil
				continue
			}
			depth--
			line, _ := d.InputPos()
			if msg := dsField(cur, t.Name.Local, strings.TrimSpace(text.String())); msg != "" {
				el.add(errAt(line, "%s", msg))
			}
			text.Reset()
		}
	}
	return out, el.list()
}

// dsField sets the field an element names (any depth below the datasource);
// it returns what is wrong with the value, "" when fine.
func dsField(ds *Datasource, name, v string) string {
	var bad string
	setBool := func(p **bool) {
		if *p = dsBool(ds, name, v); *p == nil && !strings.HasPrefix(v, "${") {
			bad = "expected true or false"
		}
	}
	setInt := func(p **int64) {
		if *p = dsInt(ds, name, v); *p == nil && !strings.HasPrefix(v, "${") {
			bad = "expected a whole number"
		}
	}
	switch name {
	case "jndi-name":
		ds.JNDIName = v
		ds.Legacy = true
	case "connection-url":
		// A JDBC URL may hold the password (?password=, Oracle thin's
		// user/password@, MySQL's user:password@): the datasource is
		// shown in findings and reports, sent to others.
		ds.ConnectionURL = crash.Redact(v)
	case "min-pool-size":
		setInt(&ds.MinPoolSize)
	case "max-pool-size":
		setInt(&ds.MaxPoolSize)
	case "validate-on-match":
		setBool(&ds.ValidateOnMatch)
	case "background-validation":
		setBool(&ds.BackgroundValidation)
	case "background-validation-millis":
		setInt(&ds.BackgroundValidationMillis)
	case "background-validation-minutes":
		var m *int64
		setInt(&m)
		if m != nil && *m >= 0 && *m < 1<<40 {
			ds.BackgroundValidationMillis = ptr(*m * 60000)
		} else if bad == "" {
			bad = "minutes out of range"
		}
	case "check-valid-connection-sql":
		ds.CheckValidConnectionSQL = v
	case "valid-connection-checker-class-name":
		ds.ValidConnectionChecker = v
	}
	if bad != "" {
		return "<" + name + ">: " + bad + ", got " + strconv.Quote(trunc(v, 40))
	}
	return ""
}

// dsExpr resolves a WildFly expression ${prop:default} to its default.
func dsExpr(ds *Datasource, name, v string) string {
	if strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") {
		if ds.Expressions == nil {
			ds.Expressions = map[string]string{}
		}
		ds.Expressions[name] = crash.Redact(v)
		inner := v[2 : len(v)-1]
		if i := strings.LastIndexByte(inner, ':'); i >= 0 {
			return inner[i+1:]
		}
		return ""
	}
	return v
}

func dsBool(ds *Datasource, name, v string) *bool {
	switch strings.ToLower(strings.TrimSpace(dsExpr(ds, name, v))) {
	case "true":
		return ptr(true)
	case "false":
		return ptr(false)
	}
	return nil
}

func dsInt(ds *Datasource, name, v string) *int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(dsExpr(ds, name, v)), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}
