package libvirt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/dbhost/dbhost/internal/golden"
)

const frag = `  <memory unit='KiB'>4194304</memory>
  <currentMemory unit='KiB'>4194304</currentMemory>
  <memoryBacking>
    <hugepages>
      <page size='2048' unit='KiB'/>
    </hugepages>
  </memoryBacking>
  <vcpu placement='static'>4</vcpu>
  <cputune>
    <vcpupin vcpu='0' cpuset='2'/>
    <vcpupin vcpu='1' cpuset='10'/>
    <vcpupin vcpu='2' cpuset='3'/>
    <vcpupin vcpu='3' cpuset='11'/>
    <emulatorpin cpuset='1,9'/>
  </cputune>
  <numatune>
    <memory mode='strict' nodeset='0-1'/>
    <memnode cellid='0' mode='strict' nodeset='0'/>
    <memnode cellid='1' mode='strict' nodeset='1'/>
  </numatune>
  <cpu>
    <topology sockets='2' cores='1' threads='2'/>
    <numa>
      <cell id='0' cpus='0-1' memory='2097152' unit='KiB'/>
      <cell id='1' cpus='2-3' memory='2097152' unit='KiB'/>
    </numa>
  </cpu>
`

func TestEditKeepsEverythingElse(t *testing.T) {
	b, err := os.ReadFile("testdata/db1.xml")
	if err != nil {
		t.Fatal(err)
	}
	dom := string(b)
	out, err := Edit(dom, frag)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{
		"<app:note xmlns:app=\"http://example.com/app\">keep me &amp; my entities</app:note>",
		"<cpu mode='host-passthrough' check='none' migratable='on'>\n    <feature policy='disable' name='svm'/>",
		"passwd='s3cret'", "<qemu:arg value='-no-hpet'/>", "cache='none' io='native'",
		"<uuid>4dea22b3-1d52-d8f3-2516-782e98ab3fa0</uuid>",
	} {
		if !strings.Contains(out, keep) {
			t.Errorf("edited definition lost %q:\n%s", keep, out)
		}
	}
	for _, gone := range []string{"<memory unit='GiB'>8</memory>", "current='2'"} {
		if strings.Contains(out, gone) {
			t.Errorf("edited definition still has %q", gone)
		}
	}
	want, err := FragmentView(frag)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Placement(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if m := got.Missing(want); len(m) > 0 {
		t.Errorf("edited definition misses %v:\n%s", m, out)
	}
	before, _ := Placement(dom)
	if m := before.Missing(want); len(m) == 0 {
		t.Error("the original definition already matches: the test tests nothing")
	}
	// editing twice is editing once
	again, err := Edit(out, frag)
	if err != nil || again != out {
		t.Errorf("second edit differs (%v):\n%s", err, again)
	}
	// a domain without <cpu>, with a self-closing one
	for _, d := range []string{
		strings.Replace(dom, "  <cpu mode='host-passthrough' check='none' migratable='on'>\n    <feature policy='disable' name='svm'/>\n  </cpu>\n", "", 1),
		strings.Replace(dom, "  <cpu mode='host-passthrough' check='none' migratable='on'>\n    <feature policy='disable' name='svm'/>\n  </cpu>\n", "  <cpu mode='host-model'/>\n", 1),
	} {
		out, err := Edit(d, frag)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Placement(out)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if m := got.Missing(want); len(m) > 0 {
			t.Errorf("misses %v:\n%s", m, out)
		}
		if n := strings.Count(out, "<cpu>") + strings.Count(out, "<cpu "); n != 1 {
			t.Errorf("%d <cpu> elements:\n%s", n, out)
		}
	}
}

func TestEditRefusesBadInput(t *testing.T) {
	for _, c := range []struct{ dom, frag, want string }{
		{"<domain><name>x</name>", frag, "malformed XML"},
		{"<domain><vcpu>1</vcpu><vcpu>2</vcpu></domain>", frag, "<vcpu> appears twice"},
		{"<domain/>", "<vcpu>1</vcpu><vcpu>2</vcpu>", "<vcpu> twice"},
		{"<domain/>", "<vcpu>1", "fragments: malformed XML"},
	} {
		if _, err := Edit(c.dom, c.frag); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Edit(%q): %v, want %q", c.dom, err, c.want)
		}
	}
}

func TestPlacementUnits(t *testing.T) {
	v, err := Placement("<domain><memory unit='GiB'>2</memory><currentMemory>2097152</currentMemory><memoryBacking><hugepages><page size='1' unit='G'/></hugepages></memoryBacking><numatune><memory nodeset='1,0'/></numatune></domain>")
	if err != nil {
		t.Fatal(err)
	}
	if v.MemoryKB != 2<<20 || v.CurrentKB != 2<<20 || v.PageKB[0] != 1<<20 || v.Mode != "strict" || v.Nodeset != "0-1" {
		t.Errorf("%+v", v)
	}
	if _, err := Placement("<domain><memory unit='parsecs'>2</memory></domain>"); err == nil {
		t.Error("unknown unit accepted")
	}
}

func FuzzEdit(f *testing.F) {
	if b, err := os.ReadFile("testdata/db1.xml"); err == nil {
		f.Add(string(b))
	}
	f.Add("<domain><cpu/></domain>")
	want, _ := FragmentView(frag)
	f.Fuzz(func(t *testing.T, dom string) {
		out, err := Edit(dom, frag)
		if err != nil {
			return
		}
		got, err := Placement(out)
		if err != nil {
			// Edit keeps the rest of the document as it was: only a
			// document Placement cannot read either may fail here.
			if _, err0 := Placement(dom); err0 == nil {
				t.Fatalf("edited definition unreadable (%v), the original was:\n%s\nedited:\n%s", err, dom, out)
			}
			return
		}
		if m := got.Missing(want); len(m) > 0 {
			t.Fatalf("edited definition misses %v:\n%s", m, out)
		}
	})
}

// TestSuiteDomainHoldsFragments is run by scripts/suites/libvirt.sh on
// what a real libvirtd kept after dbhost place --apply: the definition
// (DBHOST_LIBVIRT_DOMAIN) must hold the placement of the fragments file
// dbhost wrote (DBHOST_LIBVIRT_FRAGMENTS).
func TestSuiteDomainHoldsFragments(t *testing.T) {
	dom, frag := os.Getenv("DBHOST_LIBVIRT_DOMAIN"), os.Getenv("DBHOST_LIBVIRT_FRAGMENTS")
	if dom == "" || frag == "" {
		t.Skip("run by scripts/suites/libvirt.sh (a private libvirtd)")
	}
	d, err := os.ReadFile(dom)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.ReadFile(frag)
	if err != nil {
		t.Fatal(err)
	}
	want, err := FragmentView(string(f))
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Pins) == 0 || want.Mode == "" || len(want.PageKB) == 0 {
		t.Fatalf("the fragments hold no placement: %+v", want)
	}
	got, err := Placement(string(d))
	if err != nil {
		t.Fatal(err)
	}
	if m := got.Missing(want); len(m) > 0 {
		t.Errorf("libvirt's definition lacks %v", m)
	}
}

// TestRunRefusesCutOutput: a definition longer than MaxXML is an error,
// never a truncated definition journaled or spliced as if it were whole.
func TestRunRefusesCutOutput(t *testing.T) {
	dir := t.TempDir()
	virsh := filepath.Join(dir, "virsh")
	script := fmt.Sprintf("#!/bin/sh\nhead -c %d /dev/zero | tr '\\000' a\n", MaxXML+1)
	if err := os.WriteFile(virsh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Conn{URI: "test:///default", Virsh: virsh}
	if x, err := c.DumpXML("db1"); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("DumpXML of %d bytes: %d bytes, err %v; want an error", MaxXML+1, len(x), err)
	}
	script = fmt.Sprintf("#!/bin/sh\nhead -c %d /dev/zero | tr '\\000' a\n", MaxXML)
	if err := os.WriteFile(virsh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if x, err := c.DumpXML("db1"); err != nil || len(x) != MaxXML {
		t.Fatalf("DumpXML of exactly %d bytes: %d bytes, err %v", MaxXML, len(x), err)
	}
}

// TestReadOnlyConn: a read-only connection (collect and audit read guests
// through one) passes --readonly to virsh, in the C locale, and says which
// call failed; a missing virsh is named as such.
func TestReadOnlyConn(t *testing.T) {
	dir := t.TempDir()
	virsh := filepath.Join(dir, "virsh")
	script := "#!/bin/sh\necho \"$LC_ALL $*\"\ncase \"$*\" in *gone*) echo 'error: failed to get domain' >&2; exit 1;; esac\n"
	if err := os.WriteFile(virsh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Conn{URI: "qemu:///system", Virsh: virsh, ReadOnly: true}
	out, err := c.Output("list", "--all", "--name")
	if want := "C --quiet --connect qemu:///system --readonly list --all --name\n"; err != nil || string(out) != want {
		t.Errorf("Output = %q, %v; want %q", out, err, want)
	}
	if out, err := c.Output("dumpxml", "gone"); err == nil || out != nil || err.Error() != "virsh dumpxml gone: error: failed to get domain" {
		t.Errorf("a failing call: %q, %v", out, err)
	}
	c.ReadOnly = false
	if out, _ := c.Output("uri"); strings.Contains(string(out), "--readonly") {
		t.Errorf("a read-write connection passed --readonly: %q", out)
	}
	c.Virsh = filepath.Join(dir, "no-such-virsh")
	if _, err := c.Output("uri"); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("a missing virsh: %v", err)
	}
}
