package outdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func spec(files map[string]string) Spec {
	s := Spec{Command: "dbhost test", Files: map[string]File{}}
	for n, c := range files {
		m := fs.FileMode(0)
		if strings.HasSuffix(n, ".sh") {
			m = 0o755
		}
		s.Files[n] = File{Data: []byte(c), Mode: m}
	}
	return s
}

// tree maps every file under dir to its content (directories as "/").
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			m[rel+"/"] = ""
		} else {
			b, _ := os.ReadFile(p)
			m[rel] = string(b)
		}
		return nil
	})
	return m
}

func keys(m map[string]string) string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return strings.Join(k, " ")
}

func refused(t *testing.T, err error, file string) {
	t.Helper()
	var re *RefusedError
	if !errors.As(err, &re) || !strings.HasSuffix(re.File, file) {
		t.Fatalf("want a refusal naming %s, got %v", file, err)
	}
}

func TestNewDirThenReplace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "plan")
	names, err := Write(dir, spec(map[string]string{"a.txt": "1", "sub/b.conf": "2", "run.sh": "#!/bin/sh\n"}))
	if err != nil || strings.Join(names, " ") != "a.txt run.sh sub/b.conf" {
		t.Fatal(names, err)
	}
	if got := keys(tree(t, dir)); got != "./ .dbhost-manifest a.txt run.sh sub/ sub/b.conf" {
		t.Fatalf("files %s", got)
	}
	if st, _ := os.Stat(filepath.Join(dir, "run.sh")); st.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode %v", st.Mode())
	}
	// The second output replaces the first: b.conf is gone (dbhost wrote
	// it), c.txt is new; no temporary directory is left beside it.
	if _, err := Write(dir, spec(map[string]string{"a.txt": "1'", "c.txt": "3"})); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir); keys(got) != "./ .dbhost-manifest a.txt c.txt" || got["a.txt"] != "1'" {
		t.Fatalf("after replace: %v", got)
	}
	if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
		t.Fatalf("left beside the output: %v", ents)
	}
}

// TestRefusesForeignFiles: a directory holding a file dbhost did not
// write (-o ~, -o /etc/tuned), or one of its files edited since, or
// another command's output, is refused with that file named, and nothing
// in it changes.
func TestRefusesForeignFiles(t *testing.T) {
	s := spec(map[string]string{"tuned.conf": "new", "plan.json": "{}"})
	for _, c := range []struct {
		name  string
		setup func(dir string)
		file  string
	}{
		{"a home directory", func(d string) { os.WriteFile(filepath.Join(d, ".bashrc"), []byte("x"), 0o644) }, ".bashrc"},
		{"/etc/tuned", func(d string) {
			os.WriteFile(filepath.Join(d, "tuned-main.conf"), []byte("daemon = 1\n"), 0o644)
			os.WriteFile(filepath.Join(d, "active_profile"), []byte("balanced\n"), 0o644)
		}, "active_profile"},
		{"a file named like ours", func(d string) { os.WriteFile(filepath.Join(d, "tuned.conf"), []byte("mine"), 0o644) }, "tuned.conf"},
		{"a file added to a previous output", func(d string) {
			Write(d, s)
			os.MkdirAll(filepath.Join(d, "notes"), 0o755)
			os.WriteFile(filepath.Join(d, "notes", "keep"), []byte("mine"), 0o644)
		}, "notes/keep"},
		{"one of ours edited", func(d string) {
			Write(d, s)
			os.WriteFile(filepath.Join(d, "tuned.conf"), []byte("edited"), 0o644)
		}, "tuned.conf"},
		{"a symlink", func(d string) { os.Symlink("/etc/passwd", filepath.Join(d, "link")) }, "link"},
		{"another command's output", func(d string) {
			o := spec(map[string]string{"x": "1"})
			o.Command = "dbhost other"
			Write(d, o)
		}, ManifestName},
		{"a manifest that is not one", func(d string) {
			os.WriteFile(filepath.Join(d, ManifestName), []byte("garbage\n"), 0o644)
		}, ManifestName},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(dir)
			before := tree(t, dir)
			_, err := Write(dir, s)
			refused(t, err, c.file)
			if !strings.Contains(err.Error(), "refusing") {
				t.Errorf("message: %v", err)
			}
			if after := tree(t, dir); keys(after) != keys(before) || after[c.file] != before[c.file] {
				t.Errorf("the directory changed:\n%v\n%v", before, after)
			}
		})
	}
	// Not a directory.
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	_, err := Write(f, s)
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("a file as -o: %v", err)
	}
}

// TestEmptyDirAndSymlink: an existing empty directory is written in place
// (it stays the same directory, with its mode); a symlink to a directory
// is followed, and the link stays a link.
func TestEmptyDirAndSymlink(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "mine")
	os.Mkdir(dir, 0o750)
	if _, err := Write(dir, spec(map[string]string{"a": "1"})); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o750 {
		t.Errorf("mode %v", st.Mode())
	}
	link := filepath.Join(base, "link")
	os.Symlink("mine", link)
	if _, err := Write(link, spec(map[string]string{"b": "2"})); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced")
	}
	if got := keys(tree(t, dir)); got != "./ .dbhost-manifest b" {
		t.Fatalf("through the link: %s", got)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o750 {
		t.Errorf("mode after the swap %v", st.Mode())
	}
}

// TestLegacyOutput: a directory an older dbhost wrote (no manifest, only
// files the Legacy predicate recognizes) is replaced; one foreign file
// among them is refused.
func TestLegacyOutput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plan.json"), []byte(`{"schema_version":1}`), 0o644)
	os.WriteFile(filepath.Join(dir, "tuned.conf"), []byte("# written by dbhost\n"), 0o644)
	s := spec(map[string]string{"plan.json": "{}"})
	s.Legacy = func(rel string, b []byte) bool {
		return strings.Contains(string(b), "dbhost") || strings.Contains(string(b), "schema_version")
	}
	os.WriteFile(filepath.Join(dir, "notes"), []byte("mine"), 0o644)
	_, err := Write(dir, s)
	refused(t, err, "notes")
	os.Remove(filepath.Join(dir, "notes"))
	if _, err := Write(dir, s); err != nil {
		t.Fatal(err)
	}
	if got := keys(tree(t, dir)); got != "./ .dbhost-manifest plan.json" {
		t.Fatalf("%s", got)
	}
}

// TestKilledTempFileIgnored: a temporary file left by a killed in-place
// write does not make the directory foreign.
func TestKilledTempFileIgnored(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, spec(map[string]string{"a": "1"})); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".a"+tempSuffix), []byte("half"), 0o644)
	if _, err := Write(dir, spec(map[string]string{"a": "2"})); err != nil {
		t.Fatal(err)
	}
}
