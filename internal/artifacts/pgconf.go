package artifacts

import (
	"fmt"
	"github.com/dbhost/dbhost/internal/lazyre"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// PGConf is one postgresql.conf with the files it includes that exist beside it.
type PGConf struct {
	File string `json:"file"`
	// Entries are the settings in the order PostgreSQL reads them (included
	// files expanded in place); a later entry overrides an earlier one.
	Entries  []PGParam   `json:"entries"`
	Includes []PGInclude `json:"includes,omitempty"`
}

// PGParam is one "name = value" setting. Name is lower-cased; Value unquoted.
type PGParam struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PGInclude is one include / include_if_exists / include_dir directive.
type PGInclude struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Directive string `json:"directive"`
	Path      string `json:"path"`
	Followed  bool   `json:"followed"`
	Reason    string `json:"reason,omitempty"` // why it was not followed
	at        int    // number of entries of its own file before it
}

// Get is the effective (last) value of a parameter, names case-insensitive.
func (c *PGConf) Get(name string) (string, bool) {
	p, ok := c.Setting(name)
	return p.Value, ok
}

// Setting is the effective (last) entry of a parameter, with file and line.
func (c *PGConf) Setting(name string) (PGParam, bool) {
	if c == nil {
		return PGParam{}, false
	}
	name = strings.ToLower(name)
	for i := len(c.Entries) - 1; i >= 0; i-- {
		if c.Entries[i].Name == name {
			return c.Entries[i], true
		}
	}
	return PGParam{}, false
}

// Bytes is a memory parameter in bytes. unit is the parameter's unit when
// the value has none (8192 for shared_buffers/effective_cache_size/wal_buffers,
// 1024 for work_mem/maintenance_work_mem, 1<<20 for max_wal_size).
// ok is false when the parameter is not set; err when its value is not a size.
func (c *PGConf) Bytes(name string, unit int64) (n int64, ok bool, err error) {
	v, ok := c.Get(name)
	if !ok {
		return 0, false, nil
	}
	n, err = ParsePGMemory(v, unit)
	return n, true, err
}

// SharedBuffersBytes is shared_buffers in bytes (a bare number is 8kB blocks).
func (c *PGConf) SharedBuffersBytes() (int64, bool, error) { return c.Bytes("shared_buffers", 8192) }

// HugePages is huge_pages (on | off | try), lower-cased; ok false when not set.
func (c *PGConf) HugePages() (string, bool) {
	v, ok := c.Get("huge_pages")
	return strings.ToLower(v), ok
}

// HugePageSizeBytes is huge_page_size (PostgreSQL 14+; a bare number is kB;
// 0 means the kernel default).
func (c *PGConf) HugePageSizeBytes() (int64, bool, error) { return c.Bytes("huge_page_size", 1024) }

// ParsePGMemory parses a PostgreSQL memory value: a number (fractions allowed,
// as PostgreSQL 12+ accepts and rounds) with an optional unit B, kB, MB, GB or
// TB (case-sensitive, as PostgreSQL is). unit is the bytes of one unitless
// step. Negative values (-1 = "auto" for wal_buffers) are an error: the
// caller decides what auto means.
func ParsePGMemory(v string, unit int64) (int64, error) {
	s := strings.TrimSpace(v)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("expected a size like 128MB or 16384, got %q", trunc(v, 40))
	}
	num, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("expected a size like 128MB or 16384, got %q", trunc(v, 40))
	}
	mult := float64(unit)
	switch u := strings.TrimSpace(s[i:]); u {
	case "":
	case "B":
		mult = 1
	case "kB":
		mult = 1 << 10
	case "MB":
		mult = 1 << 20
	case "GB":
		mult = 1 << 30
	case "TB":
		mult = 1 << 40
	default:
		return 0, fmt.Errorf("unit %q is not one of B, kB, MB, GB, TB (PostgreSQL units are case-sensitive)", trunc(u, 20))
	}
	r := math.Round(num * mult)
	if r >= math.MaxInt64 || math.IsNaN(r) {
		return 0, fmt.Errorf("size %q is out of range", trunc(v, 40))
	}
	return int64(r), nil
}

var (
	rePGName = lazyre.New(`^[A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z_][A-Za-z0-9_$]*)*`)
	rePGBare = lazyre.New(`^[A-Za-z0-9_.:/+-]+`)
)

// ParsePGConf parses postgresql.conf syntax: "name = value" or "name value",
// value a bare word/number or a single-quoted string (” or \' for a quote),
// '#' comments. include, include_if_exists and include_dir are recorded in
// Includes (not followed: Load follows relative ones that exist).
func ParsePGConf(b []byte) (*PGConf, []error) {
	c := &PGConf{Entries: []PGParam{}}
	var el errList
	for i, ln := range splitLines(b) {
		n := i + 1
		s := strings.TrimSpace(strings.TrimSuffix(ln, "\r"))
		if s == "" || s[0] == '#' {
			continue
		}
		name := rePGName().FindString(s)
		if name == "" {
			el.add(errAt(n, "expected name = value, got %q", trunc(s, 60)))
			continue
		}
		rest := strings.TrimLeft(s[len(name):], " \t")
		if strings.HasPrefix(rest, "=") {
			rest = strings.TrimLeft(rest[1:], " \t")
		} else if rest != "" && len(rest) == len(s[len(name):]) {
			el.add(errAt(n, "expected '=' or a blank after %q", trunc(name, 40)))
			continue
		}
		val, tail, err := pgValue(rest)
		if err != "" {
			el.add(errAt(n, "%s: %s", name, err))
			continue
		}
		tail = strings.TrimSpace(tail)
		if tail != "" && tail[0] != '#' {
			el.add(errAt(n, "%s: unexpected %q after the value", name, trunc(tail, 40)))
			continue
		}
		lname := strings.ToLower(name)
		switch lname {
		case "include", "include_if_exists", "include_dir":
			c.Includes = append(c.Includes, PGInclude{Line: n, Directive: lname, Path: val, at: len(c.Entries)})
			continue
		}
		c.Entries = append(c.Entries, PGParam{Line: n, Name: lname, Value: val})
	}
	return c, el.list()
}

// pgValue reads one value; tail is what follows it.
func pgValue(s string) (val, tail, err string) {
	if s == "" || s[0] == '#' {
		return "", "", "expected a value"
	}
	if s[0] == '\'' {
		var sb strings.Builder
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s):
				i++
				switch s[i] {
				case 'n':
					sb.WriteByte('\n')
				case 't':
					sb.WriteByte('\t')
				default:
					sb.WriteByte(s[i])
				}
			case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
				sb.WriteByte('\'')
				i++
			case c == '\'':
				return sb.String(), s[i+1:], ""
			default:
				sb.WriteByte(c)
			}
		}
		return "", "", "unterminated quoted string"
	}
	v := rePGBare().FindString(s)
	if v == "" {
		return "", "", fmt.Sprintf("expected a value, got %q", trunc(s, 40))
	}
	return v, s[len(v):], ""
}

// maxPGIncludeDepth is PostgreSQL's own limit (CONF_FILE_MAX_DEPTH).
const maxPGIncludeDepth = 10

// loadPGConf parses a postgresql.conf read from path and follows its
// relative includes that exist beside it.
func loadPGConf(path string, b []byte) (*PGConf, []error) {
	out := &PGConf{File: path, Entries: []PGParam{}}
	var errs []error
	seen := map[string]bool{}
	var walk func(file string, b []byte, depth int)
	walk = func(file string, b []byte, depth int) {
		if abs, err := filepath.Abs(file); err == nil {
			seen[abs] = true
		}
		c, e := ParsePGConf(b)
		for _, x := range e {
			if pe, ok := x.(*Error); ok && pe.File == "" {
				pe.File = file
			}
		}
		errs = append(errs, e...)
		next := 0
		flush := func(upto int) {
			for ; next < upto && next < len(c.Entries); next++ {
				p := c.Entries[next]
				p.File = file
				out.Entries = append(out.Entries, p)
			}
		}
		for _, inc := range c.Includes {
			flush(inc.at)
			inc.File = file
			targets, reason := pgIncludeTargets(file, inc, depth, seen)
			inc.Reason = reason
			inc.Followed = reason == ""
			out.Includes = append(out.Includes, inc)
			for _, t := range targets {
				tb, err := readLimited(t)
				if err != nil {
					errs = append(errs, &Error{File: t, Msg: readReason(err)})
					continue
				}
				walk(t, tb, depth+1)
			}
		}
		flush(len(c.Entries))
	}
	walk(path, b, 0)
	return out, errs
}

// pgIncludeTargets lists the files an include directive names, or why it is not followed.
func pgIncludeTargets(file string, inc PGInclude, depth int, seen map[string]bool) ([]string, string) {
	switch {
	case inc.Path == "":
		return nil, "empty path"
	case filepath.IsAbs(inc.Path):
		return nil, "absolute path: not followed (it names a file of the database host, not one given here)"
	case depth+1 > maxPGIncludeDepth:
		return nil, "nested too deep"
	}
	p := filepath.Join(filepath.Dir(file), inc.Path)
	st, err := os.Stat(p)
	if err != nil {
		return nil, "not present beside " + filepath.Base(file)
	}
	var files []string
	if inc.Directive == "include_dir" {
		if !st.IsDir() {
			return nil, "not a directory"
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, readReason(err)
		}
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".conf") && !strings.HasPrefix(e.Name(), ".") {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
		sort.Strings(files)
	} else {
		if st.IsDir() {
			return nil, "is a directory"
		}
		files = []string{p}
	}
	var out []string
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err == nil && seen[abs] {
			continue // an include cycle: PostgreSQL would fail; read each file once
		}
		out = append(out, f)
	}
	return out, ""
}
