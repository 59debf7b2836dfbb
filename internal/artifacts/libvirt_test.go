package artifacts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The domain definitions are the facts package's (one parser serves
// --artifact and --libvirt).
func TestDomainArtifacts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "facts", "testdata", "libvirt", "*.xml"))
	if len(files) < 4 {
		t.Fatalf("domain testdata: %v", files)
	}
	s, errs := Load(files)
	noErrors(t, errs)
	if len(s.Domains) != len(files) {
		t.Fatalf("domains %d for %d files", len(s.Domains), len(files))
	}
	for i, d := range s.Domains {
		if d.File != files[i] || s.Files[i].Kind != KindDomain || d.Name == "" {
			t.Errorf("%s: %+v %q", files[i], s.Files[i], d.Name)
		}
	}
}

func TestRecognizeDomain(t *testing.T) {
	for in, want := range map[string]Kind{
		"<domain type='kvm'>\n<name>a</name>\n</domain>\n":                                                KindDomain,
		"<?xml version='1.0'?>\n<!--\nWARNING: THIS IS AN AUTO-GENERATED FILE.\n-->\n<domain type='kvm'>": KindDomain,
		"\ufeff<domain>": KindDomain,
		"<domstatus state='running'><domain type='kvm'>":                    KindDomain,
		"<network><name>default</name></network>":                           "",
		"<datasources><datasource jndi-name=\"java:/db\"/></datasources>":   KindDatasource,
		"<domains><domain>x</domain></domains>":                             "",
		"<?xml version='1.0'?><server><datasource jndi-name='x'/></server>": KindDatasource,
	} {
		if got := Recognize([]byte(in)); got != want {
			t.Errorf("Recognize(%q) = %q, want %q", in, got, want)
		}
	}
}

// A malformed definition is an error naming the file and the line.
func TestDomainMalformed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "db1.xml")
	if err := os.WriteFile(p, []byte("<domain type='kvm'>\n  <name>db1</name>\n  <memory unit='KiB'>16777216</memory\n</domain>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, errs := Load([]string{p})
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), p+":4: malformed XML") || len(s.Domains) != 0 || s.Files[0].Kind != KindDomain {
		t.Errorf("errs %v, set %+v", errs, s)
	}
}
