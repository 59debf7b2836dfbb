package artifacts

import (
	"strings"
)

// NetConfig is one Oracle Net parameter file (listener.ora or tnsnames.ora).
// Keys and entry names are upper-cased; values are kept as written (trimmed,
// surrounding double quotes removed).
type NetConfig struct {
	File string `json:"file"`
	Kind Kind   `json:"kind"`
	// Entries are the top-level "NAME = ..." entries keyed by upper-cased name
	// (a tnsnames alias list "A, B = (...)" gives both names the same node).
	// A simple "NAME = value" line (CONNECTION_RATE_LISTENER = 10) is an entry
	// with a Value and no Children.
	Entries map[string]*NetNode `json:"entries"`
	Order   []string            `json:"order"` // entry names in file order
}

// NetNode is one "(KEY = VALUE)" or "(KEY = (...)(...))" node, or a top-level entry.
type NetNode struct {
	Key      string     `json:"key"`
	Value    string     `json:"value,omitempty"`
	Children []*NetNode `json:"children,omitempty"`
	Line     int        `json:"line"`
}

// Setting is one KEY = VALUE found in a tree, with where it was.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Line  int    `json:"line"`
	Path  string `json:"path"` // "LISTENER/DESCRIPTION_LIST/DESCRIPTION/ADDRESS"
}

// Address is one (ADDRESS = (PROTOCOL = ..)(HOST = ..)(PORT = ..)) node.
// RateLimit and QueueSize are set when the ADDRESS itself carries them.
type Address struct {
	Protocol  string `json:"protocol,omitempty"`
	Host      string `json:"host,omitempty"`
	Port      string `json:"port,omitempty"`
	Key       string `json:"key,omitempty"` // IPC key
	RateLimit string `json:"rate_limit,omitempty"`
	QueueSize string `json:"queue_size,omitempty"`
	Line      int    `json:"line"`
}

// Entry is the top-level entry of that name (case-insensitive), or nil.
func (c *NetConfig) Entry(name string) *NetNode {
	if c == nil {
		return nil
	}
	return c.Entries[strings.ToUpper(strings.TrimSpace(name))]
}

// Param is the value of a simple top-level "NAME = value" line.
func (c *NetConfig) Param(name string) (string, bool) {
	e := c.Entry(name)
	if e == nil || len(e.Children) > 0 {
		return "", false
	}
	return e.Value, true
}

// Child is the first direct child with that key (case-insensitive), or nil.
func (n *NetNode) Child(key string) *NetNode {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if strings.EqualFold(c.Key, key) {
			return c
		}
	}
	return nil
}

// Find returns every node below n (not n itself) with that key, depth first.
func (n *NetNode) Find(key string) []*NetNode {
	var out []*NetNode
	n.walk(n.Key, func(m *NetNode, _ string) {
		if m != n && strings.EqualFold(m.Key, key) {
			out = append(out, m)
		}
	})
	return out
}

// Settings returns every KEY = value below n with that key, with its path.
func (n *NetNode) Settings(key string) []Setting {
	var out []Setting
	if n == nil {
		return nil
	}
	n.walk(n.Key, func(m *NetNode, path string) {
		if m != n && strings.EqualFold(m.Key, key) {
			out = append(out, Setting{Key: m.Key, Value: m.Value, Line: m.Line, Path: path})
		}
	})
	return out
}

func (n *NetNode) walk(path string, fn func(*NetNode, string)) {
	if n == nil {
		return
	}
	fn(n, path)
	for _, c := range n.Children {
		c.walk(path+"/"+c.Key, fn)
	}
}

// Addresses lists the ADDRESS nodes below n.
func (n *NetNode) Addresses() []Address {
	var out []Address
	if n == nil {
		return nil
	}
	for _, a := range n.Find("ADDRESS") {
		ad := Address{Line: a.Line}
		for _, c := range a.Children {
			switch c.Key {
			case "PROTOCOL":
				ad.Protocol = c.Value
			case "HOST":
				ad.Host = c.Value
			case "PORT":
				ad.Port = c.Value
			case "KEY":
				ad.Key = c.Value
			case "RATE_LIMIT":
				ad.RateLimit = c.Value
			case "QUEUESIZE":
				ad.QueueSize = c.Value
			}
		}
		out = append(out, ad)
	}
	return out
}

// Addresses lists the ADDRESS nodes of entry name.
func (c *NetConfig) Addresses(name string) []Address { return c.Entry(name).Addresses() }

// RateLimits lists where connection rate limiting is configured for a
// listener: RATE_LIMIT anywhere in its tree (ADDRESS or DESCRIPTION level)
// and the top-level CONNECTION_RATE_<listener> parameter.
func (c *NetConfig) RateLimits(listener string) []Setting {
	out := c.Entry(listener).Settings("RATE_LIMIT")
	name := "CONNECTION_RATE_" + strings.ToUpper(listener)
	if e := c.Entry(name); e != nil && len(e.Children) == 0 {
		out = append(out, Setting{Key: name, Value: e.Value, Line: e.Line, Path: name})
	}
	return out
}

// QueueSizes lists QUEUESIZE settings in entry name's tree.
func (c *NetConfig) QueueSizes(name string) []Setting { return c.Entry(name).Settings("QUEUESIZE") }

// LoadBalance lists LOAD_BALANCE settings in entry name's tree.
func (c *NetConfig) LoadBalance(name string) []Setting { return c.Entry(name).Settings("LOAD_BALANCE") }

// Listeners lists the entries that define endpoints (an ADDRESS below them),
// in file order: listener names in listener.ora, aliases in tnsnames.ora.
func (c *NetConfig) Listeners() []string {
	var out []string
	for _, name := range c.Order {
		e := c.Entries[name]
		if strings.HasPrefix(name, "SID_LIST_") {
			continue
		}
		if len(e.Find("ADDRESS")) > 0 {
			out = append(out, name)
		}
	}
	return out
}

// CRSManaged says whether the file looks managed by Oracle Clusterware (RAC
// or Restart): SCAN listener entries or the parameters CRS writes. evidence
// names what was seen. Seed 002: on RAC, listener.ora is rewritten by CRS
// and RATE_LIMIT is not supported.
func (c *NetConfig) CRSManaged() (bool, string) {
	if c == nil {
		return false, ""
	}
	for _, name := range c.Order {
		switch {
		case strings.HasPrefix(name, "LISTENER_SCAN"):
			return true, "SCAN listener entry " + name
		case strings.HasPrefix(name, "ENABLE_GLOBAL_DYNAMIC_ENDPOINT_"):
			return true, name + " (written by Oracle Clusterware)"
		}
	}
	return false, ""
}

// maxNetDepth bounds nesting (real files use fewer than 8 levels).
const maxNetDepth = 64

type netParser struct {
	s    string
	i    int
	line int
	el   *errList
}

// ParseNet parses Oracle Net parameter syntax (listener.ora, tnsnames.ora,
// sqlnet.ora): top-level "NAME[, ALIAS...] = value" or "NAME = (KEY = VALUE)
// (KEY = (...))..." entries; '#' starts a comment; keys are case-insensitive.
// A malformed entry is reported with its line and skipped up to the next
// line that starts in column 1; the other entries are kept.
func ParseNet(b []byte) (*NetConfig, []error) {
	c := &NetConfig{Entries: map[string]*NetNode{}, Order: []string{}}
	var el errList
	p := &netParser{s: string(b), line: 1, el: &el}
	for {
		p.skipSpace(true)
		if p.i >= len(p.s) {
			break
		}
		from := p.i
		e, names, ok := p.entry()
		if !ok {
			p.recover(from)
			continue
		}
		for _, n := range names {
			if _, dup := c.Entries[n]; !dup {
				c.Order = append(c.Order, n)
			}
			c.Entries[n] = e
		}
	}
	return c, el.list()
}

func (p *netParser) fail(line int, format string, a ...any) bool {
	p.el.add(errAt(line, format, a...))
	return false
}

// skipSpace skips blanks and comments; newlines too when nl.
func (p *netParser) skipSpace(nl bool) {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '\n':
			if !nl {
				return
			}
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

// recover skips to the next line that starts a top-level entry; it always
// moves past from, where the failed entry began.
func (p *netParser) recover(from int) {
	if p.i > from && p.i < len(p.s) && p.s[p.i-1] == '\n' && !strings.ContainsRune(" \t\r()\n#", rune(p.s[p.i])) {
		return // already at the start of the next entry
	}
	for p.i < len(p.s) {
		if p.s[p.i] == '\n' {
			p.line++
			p.i++
			if p.i < len(p.s) {
				switch p.s[p.i] {
				case ' ', '\t', '\r', '(', ')', '\n', '#':
				default:
					return
				}
			}
			continue
		}
		p.i++
	}
}

func (p *netParser) entry() (*NetNode, []string, bool) {
	line := p.line
	if c := p.s[p.i]; c == '(' || c == ')' || c == '=' {
		return nil, nil, p.fail(line, "expected NAME = at the start of an entry, got %q", string(c))
	}
	j := p.i
	for j < len(p.s) && p.s[j] != '=' && p.s[j] != '\n' && p.s[j] != '(' && p.s[j] != ')' && p.s[j] != '#' {
		j++
	}
	if j >= len(p.s) || p.s[j] != '=' {
		return nil, nil, p.fail(line, "expected NAME = value or NAME = (...), got %q", trunc(strings.TrimSpace(p.s[p.i:j]), 60))
	}
	var names []string
	for _, n := range strings.Split(p.s[p.i:j], ",") {
		n = strings.ToUpper(strings.TrimSpace(n))
		if n == "" || strings.ContainsAny(n, " \t\"'") {
			return nil, nil, p.fail(line, "expected an entry name before '=', got %q", trunc(strings.TrimSpace(p.s[p.i:j]), 60))
		}
		names = append(names, n)
	}
	p.i = j + 1
	e := &NetNode{Key: names[0], Line: line}
	p.skipSpace(false)
	if p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != '(' {
		// A simple value: the rest of the line.
		k := p.i
		for k < len(p.s) && p.s[k] != '\n' && p.s[k] != '#' {
			k++
		}
		v := strings.TrimSpace(p.s[p.i:k])
		if strings.ContainsAny(v, "()") {
			return nil, nil, p.fail(line, "expected a value or '(' after %s =, got %q", names[0], trunc(v, 60))
		}
		e.Value = unquoteNet(v)
		p.i = k
		return e, names, true
	}
	p.skipSpace(true)
	if p.i >= len(p.s) || p.s[p.i] != '(' {
		return nil, nil, p.fail(line, "expected a value or '(' after %s =", names[0])
	}
	for p.i < len(p.s) && p.s[p.i] == '(' {
		n, ok := p.node(1)
		if !ok {
			return nil, nil, false
		}
		e.Children = append(e.Children, n)
		p.skipSpace(true)
	}
	if p.i < len(p.s) && p.s[p.i] == ')' {
		return nil, nil, p.fail(p.line, "unbalanced ')' after the %s entry", names[0])
	}
	// A following entry must start in column 1 (continuations are indented).
	return e, names, true
}

// node parses "(KEY = VALUE)" or "(KEY = (..)(..))" at p.s[p.i] == '('.
func (p *netParser) node(depth int) (*NetNode, bool) {
	open := p.line
	if depth > maxNetDepth {
		return nil, p.fail(open, "nesting deeper than %d levels", maxNetDepth)
	}
	p.i++ // '('
	p.skipSpace(true)
	j := p.i
	for j < len(p.s) && !strings.ContainsRune("=()\n#", rune(p.s[j])) {
		j++
	}
	key := strings.ToUpper(strings.TrimSpace(p.s[p.i:j]))
	if key == "" {
		return nil, p.fail(p.line, "expected KEY after '('")
	}
	n := &NetNode{Key: key, Line: p.line}
	p.i = j
	p.skipSpace(true)
	if p.i >= len(p.s) {
		return nil, p.fail(open, "expected ')' closing (%s opened here, got the end of the file", key)
	}
	switch p.s[p.i] {
	case ')':
		p.i++
		return n, true
	case '(':
		return nil, p.fail(p.line, "expected '=' after (%s", key)
	}
	p.i++ // '='
	p.skipSpace(true)
	if p.i < len(p.s) && p.s[p.i] == '(' {
		for p.i < len(p.s) && p.s[p.i] == '(' {
			c, ok := p.node(depth + 1)
			if !ok {
				return nil, false
			}
			n.Children = append(n.Children, c)
			p.skipSpace(true)
		}
	} else {
		var sb strings.Builder
		inQ := false
		for p.i < len(p.s) {
			c := p.s[p.i]
			if c == '"' {
				inQ = !inQ
			} else if !inQ && (c == ')' || c == '(') {
				break
			} else if c == '\n' {
				if inQ {
					return nil, p.fail(p.line, "unterminated quote in (%s", key)
				}
				p.line++
			} else if !inQ && c == '#' {
				for p.i < len(p.s) && p.s[p.i] != '\n' {
					p.i++
				}
				continue
			}
			sb.WriteByte(c)
			p.i++
		}
		n.Value = unquoteNet(strings.TrimSpace(sb.String()))
		if p.i < len(p.s) && p.s[p.i] == '(' {
			return nil, p.fail(p.line, "expected ')' closing (%s opened on line %d, got '('", key, open)
		}
	}
	if p.i >= len(p.s) {
		return nil, p.fail(open, "expected ')' closing (%s opened here, got the end of the file", key)
	}
	if p.s[p.i] != ')' {
		if p.line > open {
			return nil, p.fail(open, "(%s is not closed before line %d", key, p.line)
		}
		return nil, p.fail(p.line, "expected ')' closing (%s, got %q", key, string(p.s[p.i]))
	}
	p.i++
	return n, true
}

func unquoteNet(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}
