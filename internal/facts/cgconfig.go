package facts

import (
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// ParseCgconfig parses libcgroup's cgconfig.conf(5):
//
//	mount { cpuset = /cgroup/cpuset; }
//	group db/oracle { perm { ... } cpuset { cpuset.cpus = "0-3"; cpuset.mems = "0"; } cpu { cpu.shares = 512; } }
//	template users/%u { cpuset { ... } }
//	default { perm { ... } }
//
// '#' starts a comment. It returns one entry per controller setting (File is
// left empty, Line is the setting's line; a template's group name is
// prefixed "template:"). mount, perm and default blocks hold no controller
// settings and are checked for syntax only. Like cgconfigparser, which
// rejects the whole file, any syntax error returns nil and a *ParseError.
func ParseCgconfig(r io.Reader) ([]snapshot.CgconfigEntry, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxConfigFileBytes+1))
	if err != nil {
		return nil, parseErr(0, "%v", err)
	}
	if len(b) > maxConfigFileBytes {
		return nil, parseErr(0, "file larger than %d bytes", maxConfigFileBytes)
	}
	p := &cgParser{toks: cgTokenize(b)}
	var out []snapshot.CgconfigEntry
	for !p.done() {
		t := p.next()
		if t.kind != cgWord {
			return nil, parseErr(t.line, "expected group, template, mount or default, got %q", trunc(t.text, 30))
		}
		switch t.text {
		case "group", "template":
			name := p.next()
			if name.kind != cgWord && name.kind != cgString {
				return nil, parseErr(name.line, "expected a %s name, got %q", t.text, trunc(name.text, 30))
			}
			group := name.text
			if t.text == "template" {
				group = "template:" + group
			}
			if err := p.expect(cgOpen); err != nil {
				return nil, err
			}
			for {
				c := p.next()
				if c.kind == cgClose {
					break
				}
				if c.kind != cgWord {
					return nil, parseErr(c.line, "expected a controller name or }, got %q", trunc(c.text, 30))
				}
				if err := p.expect(cgOpen); err != nil {
					return nil, err
				}
				if c.text == "perm" {
					if err := p.skipBlock(); err != nil {
						return nil, err
					}
					continue
				}
				kvs, err := p.assignments()
				if err != nil {
					return nil, err
				}
				for _, kv := range kvs {
					out = append(out, snapshot.CgconfigEntry{Line: kv.line, Group: group, Key: kv.key, Value: kv.value})
				}
			}
		case "mount", "namespace": // namespace: libcgroup before 0.42
			if err := p.expect(cgOpen); err != nil {
				return nil, err
			}
			if _, err := p.assignments(); err != nil {
				return nil, err
			}
		case "default":
			if err := p.expect(cgOpen); err != nil {
				return nil, err
			}
			if err := p.skipBlock(); err != nil {
				return nil, err
			}
		default:
			return nil, parseErr(t.line, "expected group, template, mount or default, got %q", trunc(t.text, 30))
		}
	}
	return out, nil
}

const (
	cgEOF = iota
	cgWord
	cgString
	cgOpen
	cgClose
	cgEquals
	cgSemi
	cgBad
)

type cgToken struct {
	kind int
	text string
	line int
}

func cgTokenize(b []byte) []cgToken {
	var toks []cgToken
	line := 1
	for i := 0; i < len(b); {
		ch := b[i]
		switch {
		case ch == '\n':
			line++
			i++
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case ch == '#':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case ch == '{':
			toks = append(toks, cgToken{cgOpen, "{", line})
			i++
		case ch == '}':
			toks = append(toks, cgToken{cgClose, "}", line})
			i++
		case ch == '=':
			toks = append(toks, cgToken{cgEquals, "=", line})
			i++
		case ch == ';':
			toks = append(toks, cgToken{cgSemi, ";", line})
			i++
		case ch == '"':
			j := bytes.IndexByte(b[i+1:], '"')
			if j < 0 {
				return append(toks, cgToken{cgBad, "unterminated string", line})
			}
			s := string(b[i+1 : i+1+j])
			toks = append(toks, cgToken{cgString, s, line})
			line += strings.Count(s, "\n")
			i += j + 2
		default:
			j := i
			for j < len(b) && !strings.ContainsRune(" \t\r\n#{}=;\"", rune(b[j])) {
				j++
			}
			toks = append(toks, cgToken{cgWord, string(b[i:j]), line})
			i = j
		}
	}
	return toks
}

type cgParser struct {
	toks []cgToken
	pos  int
}

func (p *cgParser) done() bool { return p.pos >= len(p.toks) }

func (p *cgParser) next() cgToken {
	if p.done() {
		line := 1
		if len(p.toks) > 0 {
			line = p.toks[len(p.toks)-1].line
		}
		return cgToken{cgEOF, "end of file", line}
	}
	t := p.toks[p.pos]
	p.pos++
	return t
}

func (p *cgParser) expect(kind int) error {
	t := p.next()
	if t.kind != kind {
		want := map[int]string{cgOpen: "{", cgClose: "}", cgEquals: "=", cgSemi: ";"}[kind]
		return parseErr(t.line, "expected %s, got %q", want, trunc(t.text, 30))
	}
	return nil
}

// skipBlock consumes a balanced block whose '{' was already read.
func (p *cgParser) skipBlock() error {
	depth := 1
	for depth > 0 {
		t := p.next()
		switch t.kind {
		case cgOpen:
			depth++
		case cgClose:
			depth--
		case cgEOF, cgBad:
			return parseErr(t.line, "expected }, got %s", t.text)
		}
	}
	return nil
}

type cgKV struct {
	key, value string
	line       int
}

// assignments reads "key = value;" pairs up to the closing '}'.
func (p *cgParser) assignments() ([]cgKV, error) {
	var out []cgKV
	for {
		k := p.next()
		if k.kind == cgClose {
			return out, nil
		}
		if k.kind != cgWord {
			return nil, parseErr(k.line, "expected a setting name or }, got %q", trunc(k.text, 30))
		}
		if err := p.expect(cgEquals); err != nil {
			return nil, err
		}
		v := p.next()
		if v.kind != cgWord && v.kind != cgString {
			return nil, parseErr(v.line, "expected a value for %s, got %q", trunc(k.text, 30), trunc(v.text, 30))
		}
		if err := p.expect(cgSemi); err != nil {
			return nil, err
		}
		out = append(out, cgKV{k.text, v.text, k.line})
	}
}

func readCgconfig(c *Collector) []snapshot.CgconfigEntry {
	files := []string{"/etc/cgconfig.conf"}
	const dir = "/etc/cgconfig.d"
	if names, err := c.Root.ReadDirNames(dir); err == nil {
		for _, n := range names {
			if strings.HasSuffix(n, ".conf") && !strings.HasPrefix(n, ".") {
				files = append(files, dir+"/"+n)
			}
		}
	}
	var out []snapshot.CgconfigEntry
	for _, p := range files {
		b, err := c.readConfigFile(p)
		if err != nil {
			if !os.IsNotExist(err) {
				c.Absent("config.cgconfig", p, err)
			}
			continue
		}
		ents, err := ParseCgconfig(bytes.NewReader(b))
		if err != nil {
			c.lineAbsent("config.cgconfig", p, err)
			continue
		}
		for _, e := range ents {
			e.File = p
			out = append(out, e)
		}
	}
	return out
}
