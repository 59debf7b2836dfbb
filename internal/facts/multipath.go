package facts

import (
	"os"
	"strconv"
	"strings"
)

// multipathKept are the multipath.conf sections kept in the snapshot.
// overrides is kept too: it beats devices{} for the same keys.
var multipathKept = map[string]bool{"defaults": true, "overrides": true}

const maxMultipathDepth = 8

// parseMultipathConf parses multipath.conf(5) into section → key → value for
// defaults{}, overrides{} and each devices{ device{} } (keyed "devices[N]",
// N counting device blocks from 0 in file order). Other sections are checked
// for balanced braces and left out. Comments start with # or ! outside
// quotes; values may be double-quoted ("round-robin 0"); a multi-word
// unquoted value is kept with single spaces. Keys are kept as written; the
// last occurrence of a key in a section wins.
func parseMultipathConf(s string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	var stack []string
	devices := 0
	pending := ""                   // a lone word whose "{" may follow on the next line
	var pendingIn map[string]string // the section it was also stored in as a key
	cur := func() map[string]string {
		switch {
		case len(stack) == 1 && multipathKept[stack[0]]:
			return out[stack[0]]
		case len(stack) == 2 && stack[0] == "devices" && stack[1] == "device":
			return out["devices["+strconv.Itoa(devices-1)+"]"]
		}
		return nil
	}
	open := func(name string, lineNo int) error {
		if len(stack) >= maxMultipathDepth {
			return parseErr(lineNo, "sections nested deeper than %d", maxMultipathDepth)
		}
		stack = append(stack, name)
		switch {
		case len(stack) == 1 && multipathKept[name]:
			if out[name] == nil {
				out[name] = map[string]string{}
			}
		case len(stack) == 2 && stack[0] == "devices" && name == "device":
			out["devices["+strconv.Itoa(devices)+"]"] = map[string]string{}
			devices++
		}
		return nil
	}
	lineNo := 0
	for line := range strings.Lines(s) {
		lineNo++
		line = strings.TrimSuffix(line, "\n")
		toks, err := multipathTokens(line, lineNo)
		if err != nil {
			return nil, err
		}
		if len(toks) == 0 {
			continue
		}
		if pending != "" && toks[0].brace != '{' {
			if len(stack) == 0 {
				return nil, parseErr(lineNo, "expected '{' after %q", trunc(pending, 30))
			}
			pending, pendingIn = "", nil // it was a key without a value
		}
		var words []string
		// flush ends a run of words: before '{' it must be one section name
		// (or none, when the name stood alone on the previous line); else
		// the words are "key value...".
		flush := func(beforeOpen, endOfLine bool) error {
			if beforeOpen {
				switch {
				case len(words) == 1:
					return open(words[0], lineNo)
				case len(words) == 0 && pending != "":
					if pendingIn != nil && pendingIn[pending] == "" {
						delete(pendingIn, pending)
					}
					p := pending
					pending, pendingIn = "", nil
					return open(p, lineNo)
				}
				return parseErr(lineNo, "expected one section name before '{'")
			}
			if len(words) == 0 {
				return nil
			}
			m := cur()
			if len(words) == 1 && endOfLine && len(words) == len(toks) {
				pending, pendingIn = words[0], m // a section whose '{' may follow on the next line
			} else if len(stack) == 0 {
				return parseErr(lineNo, "expected a section (defaults {, devices {, ...), got %q", trunc(strings.Join(words, " "), 40))
			}
			if len(stack) > 0 && m != nil {
				m[words[0]] = strings.Join(words[1:], " ")
			}
			return nil
		}
		for _, t := range toks {
			switch {
			case t.brace == '{':
				if err := flush(true, false); err != nil {
					return nil, err
				}
				words = words[:0]
			case t.brace == '}':
				if err := flush(false, false); err != nil {
					return nil, err
				}
				words = words[:0]
				if len(stack) == 0 {
					return nil, parseErr(lineNo, "'}' without an open section")
				}
				stack = stack[:len(stack)-1]
			default:
				words = append(words, t.text)
			}
		}
		if err := flush(false, true); err != nil {
			return nil, err
		}
	}
	if len(stack) > 0 {
		return nil, parseErr(lineNo, "section %q not closed", strings.Join(stack, " "))
	}
	if pending != "" {
		return nil, parseErr(lineNo, "expected '{' after %q", trunc(pending, 30))
	}
	return out, nil
}

type mpToken struct {
	text  string
	brace byte // '{' or '}' for a brace token
}

// multipathTokens splits one line into words, quoted strings and braces.
func multipathTokens(line string, lineNo int) ([]mpToken, error) {
	var toks []mpToken
	for i := 0; i < len(line); {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case ch == '#' || ch == '!':
			return toks, nil
		case ch == '{' || ch == '}':
			toks = append(toks, mpToken{brace: ch})
			i++
		case ch == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				return nil, parseErr(lineNo, "unterminated quoted string")
			}
			toks = append(toks, mpToken{text: line[i+1 : i+1+j]})
			i += j + 2
		default:
			j := i
			for j < len(line) && !strings.ContainsRune(" \t\r{}\"", rune(line[j])) {
				j++
			}
			toks = append(toks, mpToken{text: line[i:j]})
			i = j
		}
	}
	return toks, nil
}

// readMultipathConf fills Storage.MultipathConf when /etc/multipath.conf exists.
func readMultipathConf(c *Collector) {
	const p = "/etc/multipath.conf"
	b, err := c.Root.ReadFile(p)
	if err != nil {
		if !os.IsNotExist(err) {
			c.Absent("storage.multipath_conf", p, err)
		}
		return
	}
	m, err := parseMultipathConf(string(b))
	if err != nil {
		c.Absent("storage.multipath_conf", p, err)
		return
	}
	c.Snap.Storage.MultipathConf = m
}
