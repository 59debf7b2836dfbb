package place

import (
	"fmt"

	"github.com/goccy/go-yaml/ast"
)

// The bounds of a spec's YAML shape (docs/limits.md), checked before the
// spec is decoded: a 1 KB spec of nested aliases expands to gigabytes, and
// go-yaml's scanner and parser take minutes and gigabytes on 200 KB of
// "[[[[": the 16 MiB input limit alone bounds neither memory nor time.
const (
	// MaxSpecDepth bounds the nesting of collections (a valid spec nests
	// 3 deep: the top mapping, instances, an instance), aliases expanded.
	MaxSpecDepth = 64
	// MaxSpecNodes bounds the YAML nodes of a spec (scalars, keys,
	// collections), an alias counting its anchor's nodes again: a valid
	// spec of 4096 instances with every key has about 62,000.
	MaxSpecNodes = 100_000
	// MaxInstances bounds the instances of a spec.
	MaxInstances = 4096
	// MaxSpecYAMLBytes bounds what go-yaml parses: the spec without its
	// comments, blank lines and trailing blanks (go-yaml takes about a
	// second and 60 MB per MiB; a valid spec of 4096 instances is about
	// 1 MiB, written with every key).
	MaxSpecYAMLBytes = 2 << 20
)

// prescan checks the shape of a spec's bytes before go-yaml reads them:
// nesting depth, node count and instances, counted by a scan of its own
// that keeps no more than MaxSpecDepth levels, so that the parser only
// ever sees an input whose cost is bounded. It overcounts rather than
// under (every token that starts a node counts one, a value scalar opens a
// level): the exact counts, aliases expanded, are checkShape's, on the
// AST. A quoted string must end on its line (no value of a spec spans
// lines): a quote the scan took for one that go-yaml did not would
// otherwise hide the rest of the file from the count.
//
// It returns what go-yaml is to parse: data without its comments, blank
// lines and trailing blanks (go-yaml's cost is in bytes and comments, not
// only in nodes), at most MaxSpecYAMLBytes, and the line of data each of
// its lines is (lines[k-1] for line k).
func prescan(file string, data []byte) (yml []byte, lines []int, err error) {
	yml, lines, _, err = prescanCount(file, data)
	return yml, lines, err
}

// scanCount is what prescan counted: its nodes and deepest level
// (FuzzSpecPrescan checks that go-yaml never sees more than these).
type scanCount struct{ nodes, depth int }

func prescanCount(file string, data []byte) (yml []byte, lines []int, sc scanCount, err error) {
	out := make([]byte, 0, min(len(data), MaxSpecYAMLBytes)+1)
	type level struct {
		col int
		seq bool // a block sequence (its entries are "- " at col)
	}
	var (
		stack     []level
		flow      int // open [ and {
		nodes     int
		line      = 1
		inInst    bool // in the top-level instances: block
		instCol   = -1 // the column of its "- " entries
		instances int
	)
	fail := func(format string, a ...any) error {
		return &SpecError{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	node := func() error {
		if nodes++; nodes > MaxSpecNodes {
			return fail("more than %d YAML nodes (values, keys, collections) by this line: a spec has at most %d instances (docs/limits.md)", MaxSpecNodes, MaxInstances)
		}
		return nil
	}
	deep := func() error {
		sc.depth = max(sc.depth, len(stack)+flow)
		if len(stack)+flow > MaxSpecDepth {
			return fail("nested more than %d levels deep (docs/limits.md)", MaxSpecDepth)
		}
		return nil
	}
	isWS := func(i int) bool {
		return i >= len(data) || data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'
	}
	isFlowInd := func(c byte) bool { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}' }
	err = func() error {
		n := len(data)
		i := 0
		for i < n {
			start := i
			end := i // the end of the line's last token
			first := true
			prevScalar := false // the last token was a key candidate: ':' follows it
			prevOpen := false   // the last token was '[', '{' or ',' (an empty entry follows)
			for i < n && data[i] != '\n' {
				c := data[i]
				if c == ' ' || c == '\t' || c == '\r' {
					i++
					continue
				}
				if c == '#' {
					for i < n && data[i] != '\n' {
						i++
					}
					break
				}
				col := i - start
				indicator := (c == '-' || c == '?' || c == ':') && (isWS(i+1) || (flow > 0 && i+1 < n && isFlowInd(data[i+1])))
				valueInd := c == ':' && indicator && prevScalar
				if flow == 0 && !valueInd && c != ']' && c != '}' && c != ',' {
					dash := c == '-' && indicator
					if first {
						for len(stack) > 0 && stack[len(stack)-1].col > col {
							stack = stack[:len(stack)-1]
						}
						if !dash && len(stack) > 0 && stack[len(stack)-1].col == col && stack[len(stack)-1].seq {
							stack = stack[:len(stack)-1]
						}
						if col == 0 && !dash {
							inInst = false
						}
						if inInst && dash {
							if instCol < 0 {
								instCol = col
							}
							if col == instCol {
								if instances++; instances > MaxInstances {
									return fail("instances: more than %d listed (this is the %dth; docs/limits.md)", MaxInstances, instances)
								}
							}
						}
					}
					top := -1
					topSeq := false
					if len(stack) > 0 {
						top, topSeq = stack[len(stack)-1].col, stack[len(stack)-1].seq
					}
					if col > top || (col == top && dash && !topSeq) {
						stack = append(stack, level{col: col, seq: dash})
						if err := deep(); err != nil {
							return err
						}
					}
				}
				first = false
				wasScalar := false
				opened := false
				switch {
				case c == '[' || c == '{':
					flow++
					if err := deep(); err != nil {
						return err
					}
					if err := node(); err != nil {
						return err
					}
					i++
					opened = true
				case c == ']' || c == '}':
					if flow == 0 {
						return fail("%q without its opening bracket", c)
					}
					flow--
					i++
					wasScalar = true // "{a: b}: c" is a (flow) key
				case c == ',' && flow > 0:
					if prevOpen {
						if err := node(); err != nil {
							return err
						}
					}
					i++
					opened = true
				case c == '\'' || c == '"':
					j := i + 1
					for ; j < n && data[j] != '\n'; j++ {
						if c == '\'' && data[j] == '\'' {
							if j+1 < n && data[j+1] == '\'' {
								j++
								continue
							}
							break
						}
						if c == '"' && data[j] == '\\' {
							j++
							if j < n && data[j] == '\n' {
								break
							}
							continue
						}
						if c == '"' && data[j] == '"' {
							break
						}
					}
					if j >= n || data[j] != c {
						return fail("a quoted string not closed on its line: a spec's values each fit on one line")
					}
					i = j + 1
					if err := node(); err != nil {
						return err
					}
					wasScalar = true
				case c == '&' || c == '*' || c == '!':
					for i < n && !isWS(i) && !(flow > 0 && isFlowInd(data[i])) {
						i++
					}
					if err := node(); err != nil {
						return err
					}
					wasScalar = c == '*'
				case indicator:
					i++
					if !valueInd {
						if err := node(); err != nil {
							return err
						}
					}
					if c != ':' {
						opened = flow > 0
					}
				default:
					// A plain scalar: to the end of the line, ": ", " #" or,
					// in a flow collection, a flow indicator.
					j := i
					for j < n && data[j] != '\n' {
						d := data[j]
						if d == ':' && (isWS(j+1) || (flow > 0 && j+1 < n && isFlowInd(data[j+1]))) {
							break
						}
						if d == '#' && j > i && (data[j-1] == ' ' || data[j-1] == '\t') {
							break
						}
						if flow > 0 && isFlowInd(d) {
							break
						}
						j++
					}
					if j == i {
						j++ // a ':' not followed by a blank: one character
					}
					if flow == 0 && col == 0 && string(data[i:j]) == "instances" {
						inInst, instCol = true, -1
					}
					i = j
					if err := node(); err != nil {
						return err
					}
					wasScalar = true
				}
				prevScalar, prevOpen = wasScalar, opened
				end = i
			}
			if end > start {
				out = append(append(out, data[start:end]...), '\n')
				lines = append(lines, line)
				if len(out) > MaxSpecYAMLBytes {
					return fail("more than %s of YAML by this line, comments and blank lines aside (docs/limits.md)", fmt.Sprintf("%d MiB", MaxSpecYAMLBytes>>20))
				}
			}
			if i < n {
				i++ // the '\n'
				line++
			}
		}
		return nil
	}()
	sc.nodes = nodes
	if err != nil {
		return nil, nil, sc, err
	}
	return out, lines, sc, nil
}

// shape is what checkShape learns of a spec's AST: the lines of its keys
// and instances, an alias followed to its anchor.
type shape struct {
	w         *walker
	top       *ast.MappingNode // the document's mapping, nil if none
	docLine   int              // the line of the document's first token
	instances []instance       // the instances sequence's entries, in order
}

// instance is one entry of instances: the line it is written on, its
// mapping (behind an alias or anchor) and whether that mapping is written
// elsewhere (an alias).
type instance struct {
	line  int
	m     *ast.MappingNode
	alias string // the alias name when the entry is "*name"
}

// checkShape walks the parsed spec once and refuses, before anything is
// decoded, more than MaxSpecNodes nodes or MaxSpecDepth levels once aliases
// are expanded, and more than MaxInstances instances. Anchors are sized
// once (memoized), so the walk costs the written nodes, not the expanded
// ones.
// lines maps the lines of what go-yaml parsed to the spec's (prescan).
func checkShape(file string, f *ast.File, lines []int) (*shape, error) {
	w := &walker{file: file, anchors: map[string]anchorSize{}, lines: lines}
	sh := &shape{w: w, docLine: 1}
	for _, d := range f.Docs {
		if d == nil {
			continue
		}
		if _, _, err := w.walk(d.Body, 1); err != nil {
			return nil, err
		}
	}
	if len(f.Docs) > 0 && f.Docs[0] != nil && f.Docs[0].Body != nil {
		body := f.Docs[0].Body
		if l := w.tokLine(body); l > 0 {
			sh.docLine = l
		}
		sh.top, _ = w.resolve(body).(*ast.MappingNode)
	}
	if sh.top == nil {
		return sh, nil
	}
	key, v := mapGet(w, sh.top, "instances")
	seq, _ := w.resolve(v).(*ast.SequenceNode)
	if seq == nil {
		return sh, nil
	}
	if len(seq.Values) > MaxInstances {
		return nil, &SpecError{File: file, Line: w.tokLine(key), Msg: fmt.Sprintf("instances: %d listed, at most %d (docs/limits.md)", len(seq.Values), MaxInstances)}
	}
	for _, e := range seq.Values {
		in := instance{line: w.tokLine(e)}
		if a, ok := unwrap(e).(*ast.AliasNode); ok {
			in.alias = a.Value.GetToken().Value
		}
		in.m, _ = w.resolve(e).(*ast.MappingNode)
		sh.instances = append(sh.instances, in)
	}
	return sh, nil
}

type anchorSize struct {
	value  ast.Node
	nodes  int // its nodes, aliases in it expanded
	height int // its levels below it
}

type walker struct {
	file    string
	lines   []int // the spec's line of each line go-yaml parsed
	anchors map[string]anchorSize
	total   int
}

func (w *walker) fail(n ast.Node, format string, a ...any) error {
	l := w.tokLine(n)
	if l < 1 {
		l = 1
	}
	return &SpecError{File: w.file, Line: l, Msg: fmt.Sprintf(format, a...)}
}

// walk counts n's nodes (aliases expanded) into w.total and returns them
// with n's height; depth is n's level.
func (w *walker) walk(n ast.Node, depth int) (nodes, height int, err error) {
	if n == nil {
		return 0, 0, nil
	}
	if depth > MaxSpecDepth {
		return 0, 0, w.fail(n, "nested more than %d levels deep (docs/limits.md)", MaxSpecDepth)
	}
	add := func(k int) error {
		nodes += k
		if w.total += k; w.total > MaxSpecNodes {
			return w.fail(n, "more than %d YAML nodes (values, keys, collections; an alias counts its anchor's nodes again) by this line (docs/limits.md)", MaxSpecNodes)
		}
		return nil
	}
	child := func(c ast.Node, d int) error {
		k, h, err := w.walk(c, d)
		nodes += k
		if h+d-depth > height {
			height = h + d - depth
		}
		return err
	}
	switch v := n.(type) {
	case *ast.AliasNode:
		a, ok := w.anchors[v.Value.GetToken().Value]
		if !ok {
			err := add(1)
			return nodes, 0, err
		}
		if depth+a.height > MaxSpecDepth {
			return 0, 0, w.fail(n, "alias *%s nests more than %d levels deep (docs/limits.md)", v.Value.GetToken().Value, MaxSpecDepth)
		}
		err := add(a.nodes)
		return nodes, a.height, err
	case *ast.AnchorNode:
		name := v.Name.GetToken().Value
		delete(w.anchors, name) // "&a [*a]" does not see itself
		if err := child(v.Value, depth); err != nil {
			return nodes, height, err
		}
		w.anchors[name] = anchorSize{value: v.Value, nodes: nodes, height: height}
		return nodes, height, nil
	case *ast.TagNode:
		err := child(v.Value, depth)
		return nodes, height, err
	case *ast.MappingNode:
		if err := add(1); err != nil {
			return nodes, height, err
		}
		for _, mv := range v.Values {
			if err := child(mv, depth); err != nil {
				return nodes, height, err
			}
		}
	case *ast.MappingValueNode:
		if err := child(v.Key, depth+1); err != nil {
			return nodes, height, err
		}
		err := child(v.Value, depth+1)
		return nodes, height, err
	case *ast.MappingKeyNode:
		err := child(v.Value, depth)
		return nodes, height, err
	case *ast.SequenceNode:
		if err := add(1); err != nil {
			return nodes, height, err
		}
		for _, e := range v.Values {
			if err := child(e, depth+1); err != nil {
				return nodes, height, err
			}
		}
	case *ast.SequenceEntryNode:
		err := child(v.Value, depth)
		return nodes, height, err
	case *ast.CommentGroupNode, *ast.CommentNode:
	default:
		err := add(1)
		return nodes, height, err
	}
	return nodes, height, nil
}

// resolve follows anchors, tags and aliases (to the anchor defined last
// before the walk ended: checkShape resolves after walking) to the node.
func (w *walker) resolve(n ast.Node) ast.Node {
	for i := 0; i < MaxSpecDepth && n != nil; i++ {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.SequenceEntryNode:
			n = v.Value
		case *ast.AliasNode:
			a, ok := w.anchors[v.Value.GetToken().Value]
			if !ok {
				return nil
			}
			n = a.value
		default:
			return n
		}
	}
	return n
}

// unwrap is n without a sequence entry or tag around it.
func unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.SequenceEntryNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		default:
			return n
		}
	}
}

// mapGet finds key in m, then in the mappings merged into it ("<<: *a"):
// the key node and the value node, nil when absent.
func mapGet(w *walker, m *ast.MappingNode, key string) (ast.Node, ast.Node) {
	return mapGetDepth(w, m, key, 0)
}

func mapGetDepth(w *walker, m *ast.MappingNode, key string, depth int) (ast.Node, ast.Node) {
	if m == nil || depth > MaxSpecDepth {
		return nil, nil
	}
	var merges []ast.Node
	for _, mv := range m.Values {
		if mv == nil || mv.Key == nil {
			continue
		}
		if mv.Key.IsMergeKey() {
			merges = append(merges, mv.Value)
			continue
		}
		if t := mv.Key.GetToken(); t != nil && t.Value == key {
			return mv.Key, mv.Value
		}
	}
	for _, mg := range merges {
		switch v := w.resolve(mg).(type) {
		case *ast.MappingNode:
			if k, val := mapGetDepth(w, v, key, depth+1); k != nil {
				return k, val
			}
		case *ast.SequenceNode:
			for _, e := range v.Values {
				if mm, ok := w.resolve(e).(*ast.MappingNode); ok {
					if k, val := mapGetDepth(w, mm, key, depth+1); k != nil {
						return k, val
					}
				}
			}
		}
	}
	return nil, nil
}

// tokLine is the line of the spec n's first token is on, 0 when it has
// none.
func (w *walker) tokLine(n ast.Node) int {
	if n == nil {
		return 0
	}
	if t := n.GetToken(); t != nil && t.Position != nil {
		return w.specLine(t.Position.Line)
	}
	return 0
}

// specLine maps a line of what go-yaml parsed to the spec's line.
func (w *walker) specLine(l int) int {
	if l >= 1 && l <= len(w.lines) {
		return w.lines[l-1]
	}
	if l > len(w.lines) && len(w.lines) > 0 {
		return w.lines[len(w.lines)-1]
	}
	return l
}
