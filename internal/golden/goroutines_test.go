package golden

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoroutinesReportPanics: a panic in a goroutine cannot be recovered by
// cmd/dbhost's run; in a bare `go` statement it ends dbhost with Go's stack
// dump and exit 2, the code for bad input. Every goroutine of the non-test
// code is started with crash.Go (internal/crash) or, as the fact readers'
// workers, defers a recovery first thing (c.recoverWorker, crash.Recover).
// Only internal/crash (crash.Go itself) and the tests-only testdb (a server
// for tests, never in dbhost) start bare ones.
func TestGoroutinesReportPanics(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	n := 0
	err := walkGoFiles(root, func(p string) error {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(p, "_test.go") || strings.HasPrefix(rel, "internal/crash/") || strings.HasPrefix(rel, "internal/testdb/") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(nd ast.Node) bool {
			g, ok := nd.(*ast.GoStmt)
			if !ok {
				return true
			}
			n++
			if !recoversFirst(g.Call) {
				t.Errorf("%s: a bare go statement: start it with crash.Go(func() {...}) (a panic in it would be Go's stack dump and exit 2), or defer a recovery first thing in it", fset.Position(g.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no go statement found at all: the walk is broken (the fact readers start some)")
	}
}

// recoversFirst: call is a function literal whose first statements (the
// first three: a wg.Done comes before) defer recoverWorker or Recover.
func recoversFirst(call *ast.CallExpr) bool {
	lit, ok := call.Fun.(*ast.FuncLit)
	if !ok {
		return false
	}
	for i, st := range lit.Body.List {
		if i == 3 {
			break
		}
		d, ok := st.(*ast.DeferStmt)
		if !ok {
			continue
		}
		var name string
		switch fn := d.Call.Fun.(type) {
		case *ast.SelectorExpr:
			name = fn.Sel.Name
		case *ast.Ident:
			name = fn.Name
		}
		if name == "recoverWorker" || name == "Recover" {
			return true
		}
	}
	return false
}
