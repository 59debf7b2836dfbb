package facts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func testdataDomain(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "libvirt", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A --root tree: the definition files, sorted by domain name, a malformed
// one listed with its line; nothing is read without --libvirt.
func TestReadLibvirtFiles(t *testing.T) {
	dir := t.TempDir()
	sosWriteTree(t, dir, map[string]string{
		"etc/libvirt/qemu/db2.xml":                 testdataDomain(t, "db2-rhel7-i440fx-defaults.xml"),
		"etc/libvirt/qemu/db1.xml":                 testdataDomain(t, "db1-rhel9-q35-pinned.xml"),
		"etc/libvirt/qemu/broken.xml":              "<domain type='kvm'>\n<name>broken</name>\n<vcpu>2</vcpu\n</domain>\n",
		"etc/libvirt/qemu/networks/default.xml":    "<network><name>default</name></network>",
		"etc/libvirt/qemu/autostart/db1.xml.notes": "x",
		"sys/kernel/mm/ksm/run":                    "1\n",
		"sys/kernel/mm/ksm/pages_sharing":          "52311\n",
	})
	s := Collect(Root{Dir: dir}, Options{Libvirt: true})
	lv := s.Libvirt
	if lv == nil || lv.Source != "files" || len(lv.Domains) != 2 || lv.Domains[0].Name != "db1" || lv.Domains[1].File != "/etc/libvirt/qemu/db2.xml" {
		t.Fatalf("libvirt %+v", lv)
	}
	if lv.KSM == nil || *lv.KSM.Run != 1 || *lv.KSM.PagesSharing != 52311 || lv.KSM.PagesShared != nil {
		t.Errorf("ksm %+v", lv.KSM)
	}
	if len(lv.Errors) != 1 || !strings.HasPrefix(lv.Errors[0], "/etc/libvirt/qemu/broken.xml: line 4: malformed XML") {
		t.Errorf("errors %q", lv.Errors)
	}
	if s := Collect(Root{Dir: dir}, Options{}); s.Libvirt != nil {
		t.Errorf("read without --libvirt: %+v", s.Libvirt)
	}
	// No libvirt on the host: absent with the reason, never "no guests".
	empty := t.TempDir()
	sosWriteTree(t, empty, map[string]string{"etc/hostname": "h\n"})
	s = Collect(Root{Dir: empty}, Options{Libvirt: true})
	if s.Libvirt == nil || len(s.Libvirt.Domains) != 0 || !hasAbsence(s.Absent, "libvirt.domains") || !hasAbsence(s.Absent, "libvirt.ksm") || s.Libvirt.KSM != nil {
		t.Errorf("no /etc/libvirt/qemu: %+v %+v", s.Libvirt, s.Absent)
	}
}

func hasAbsence(abs []snapshot.Absence, fact string) bool {
	for _, a := range abs {
		if a.Fact == fact {
			return true
		}
	}
	return false
}

// A sosreport: the virsh plugin's dumpxml outputs first (network and pool
// dumps are not domains), else etc/libvirt/qemu with a note.
func TestReadLibvirtSosreport(t *testing.T) {
	dir := t.TempDir()
	sosWriteTree(t, dir, map[string]string{
		"sos_commands/virsh/virsh_-r_dumpxml_db1":         testdataDomain(t, "db1-rhel9-q35-pinned.xml"),
		"sos_commands/virsh/virsh_-r_net-dumpxml_default": "<network><name>default</name></network>",
		"sos_commands/virsh/virsh_-r_list_--all":          " Id   Name   State\n----------------------\n 7    db1    running\n",
		"etc/libvirt/qemu/db2.xml":                        testdataDomain(t, "db2-rhel7-i440fx-defaults.xml"),
	})
	s := Collect(Root{Dir: dir, Sos: true}, Options{Libvirt: true})
	if lv := s.Libvirt; lv.Source != "sosreport virsh" || len(lv.Domains) != 1 || lv.Domains[0].Name != "db1" || lv.Domains[0].File != "/sos_commands/virsh/virsh_-r_dumpxml_db1" {
		t.Errorf("sos %+v", lv)
	}
	if err := os.Remove(filepath.Join(dir, "sos_commands/virsh/virsh_-r_dumpxml_db1")); err != nil {
		t.Fatal(err)
	}
	s = Collect(Root{Dir: dir, Sos: true}, Options{Libvirt: true})
	if lv := s.Libvirt; lv.Source != "files" || len(lv.Domains) != 1 || lv.Domains[0].Name != "db2" || !strings.Contains(lv.Note, "virsh plugin listed no domain") {
		t.Errorf("sos without dumpxml %+v", lv)
	}
}

// The live host: virsh list, then dumpxml of each; when virsh cannot
// answer, the files, with the reason in the note.
func TestReadLibvirtVirsh(t *testing.T) {
	dir := t.TempDir()
	sosWriteTree(t, dir, map[string]string{"etc/libvirt/qemu/db2.xml": testdataDomain(t, "db2-rhel7-i440fx-defaults.xml")})
	var calls []string
	virsh := func(args ...string) ([]byte, error) {
		calls = append(calls, strings.Join(args, " "))
		switch strings.Join(args, " ") {
		case "list --all --name":
			return []byte("db1\ndb4\ngone\n\n"), nil
		case "dumpxml db1":
			return []byte(testdataDomain(t, "db1-rhel9-q35-pinned.xml")), nil
		case "dumpxml db4":
			return []byte(testdataDomain(t, "db4-ubuntu-iscsi-spread.xml")), nil
		}
		return nil, errors.New("error: failed to get domain 'gone'")
	}
	c := &Collector{Root: Root{Dir: dir, Live: true}, Snap: &snapshot.Snapshot{Absent: []snapshot.Absence{}}, libvirt: &libvirtAsk{virsh: virsh}}
	readLibvirt(c)
	lv := c.Snap.Libvirt
	if lv.Source != "virsh" || len(lv.Domains) != 2 || lv.Domains[1].File != "virsh dumpxml db4" || len(lv.Errors) != 1 || !strings.Contains(lv.Errors[0], "gone") {
		t.Errorf("virsh %+v (calls %q)", lv, calls)
	}
	down := func(...string) ([]byte, error) {
		return nil, errors.New("virsh list --all --name: error: failed to connect to the hypervisor")
	}
	c = &Collector{Root: Root{Dir: dir, Live: true}, Snap: &snapshot.Snapshot{Absent: []snapshot.Absence{}}, libvirt: &libvirtAsk{virsh: down}}
	readLibvirt(c)
	if lv := c.Snap.Libvirt; lv.Source != "files" || len(lv.Domains) != 1 || !strings.Contains(lv.Note, "failed to connect") {
		t.Errorf("libvirtd down: %+v", lv)
	}
}
