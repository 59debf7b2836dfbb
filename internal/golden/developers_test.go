package golden

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/dbhost/dbhost"

// TestDevelopersPackageMap: DEVELOPERS.md's package table is the map of the
// module. Every package (a directory with non-test .go files, testdata and
// dot/underscore directories aside) has a row, every row is a package, and
// a package's non-test files import only the internal packages its row
// lists ("—" for none).
func TestDevelopersPackageMap(t *testing.T) {
	root := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "DEVELOPERS.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]map[string]bool{} // "internal/facts" → may import {"snapshot": true}
	for i, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		pkg := strings.Trim(strings.TrimSpace(cells[1]), "`/")
		if _, dup := rows[pkg]; dup {
			t.Errorf("DEVELOPERS.md line %d: %s has a second row", i+1, pkg)
		}
		may := map[string]bool{}
		if list := strings.TrimSpace(cells[3]); list != "—" && list != "" {
			for _, m := range strings.Split(list, ",") {
				may[strings.TrimSpace(m)] = true
			}
		}
		rows[pkg] = may
	}
	if len(rows) < 10 {
		t.Fatalf("DEVELOPERS.md: only %d package rows found (| `path` | job | may import |): the table moved or changed shape", len(rows))
	}

	pkgs := map[string]map[string]bool{} // "internal/facts" → imports {"snapshot": true}
	fset := token.NewFileSet()
	err = walkGoFiles(root, func(p string) error {
		if strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if pkgs[rel] == nil {
			pkgs[rel] = map[string]bool{}
		}
		for _, im := range f.Imports {
			v, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(v, module+"/internal/"); ok {
				pkgs[rel][dep] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		may, ok := rows[p]
		if !ok {
			t.Errorf("package %s has no row in DEVELOPERS.md's package table (| `%s` | its job | what it may import |)", p, p)
			continue
		}
		for dep := range pkgs[p] {
			if !may[dep] {
				t.Errorf("%s imports internal/%s, which its DEVELOPERS.md row does not allow: add it there (the flow goes one way) or drop the import", p, dep)
			}
		}
	}
	for p, may := range rows {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("DEVELOPERS.md lists %s, which is not a package of the module", p)
		}
		for dep := range may {
			if _, ok := pkgs["internal/"+dep]; !ok {
				t.Errorf("DEVELOPERS.md: %s may import %q, which is not an internal package", p, dep)
			}
		}
	}
}
