package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// collect --libvirt --root: the guests enter the snapshot; a malformed
// definition is named with its line on stderr and exit 2, the snapshot
// still written with the others; --snapshot keeps them, and --libvirt on a
// snapshot without them says why.
func TestCLICollectLibvirt(t *testing.T) {
	tree := cliTree(t)
	qemu := filepath.Join(tree, "etc", "libvirt", "qemu")
	if err := os.MkdirAll(qemu, 0o755); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join("..", "..", "internal", "facts", "testdata", "libvirt", "db2-rhel7-i440fx-defaults.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(qemu, "db2.xml"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(qemu, "bad.xml"), []byte("<domain type='kvm'>\n<name>bad</name>\n<memory unit='KiB'>x</memory>\n</domain>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "kvm.json")
	code, _, errs := cliRun(t, "collect", "--root", tree, "--libvirt", "--format", "json", "-o", out)
	if code != 2 || !strings.Contains(errs, "/etc/libvirt/qemu/bad.xml: line 3: <memory> \"x\": expected a number") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	s, err := snapshot.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Libvirt == nil || len(s.Libvirt.Domains) != 1 || s.Libvirt.Domains[0].Name != "db2" || *s.Libvirt.Domains[0].MemoryKB != 96<<20 {
		t.Fatalf("libvirt %+v", s.Libvirt)
	}
	code, o2, errs := cliRun(t, "collect", "--snapshot", out, "--format", "json")
	if code != 2 || !strings.Contains(o2, `"name": "db2"`) || !strings.Contains(errs, "bad.xml") {
		t.Errorf("--snapshot: exit %d, %s", code, errs)
	}
	_, text, _ := cliRun(t, "collect", "--snapshot", out)
	wantContains(t, "summary", text, "KVM guests (libvirt, from files): 1", "db2: defined, 24 vCPU(s), 96G, vCPUs not pinned, memory unbound, 4 KiB pages; 3 disk(s), 2 NIC(s) [/etc/libvirt/qemu/db2.xml]",
		"! /etc/libvirt/qemu/bad.xml: line 3")
	_, md, _ := cliRun(t, "collect", "--snapshot", out, "--format", "markdown")
	wantContains(t, "summary markdown", md, "## KVM guests (libvirt, from files): 1", "- db2: defined, 24 vCPU(s)", "- ! /etc/libvirt/qemu/bad.xml: line 3")
	plain := filepath.Join(t.TempDir(), "plain.json")
	if code, _, errs := cliRun(t, "collect", "--root", tree, "--format", "json", "-o", plain); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, o3, _ := cliRun(t, "collect", "--snapshot", plain, "--libvirt", "--format", "json")
	if code != 0 || !strings.Contains(o3, "the snapshot was collected without --libvirt") || strings.Contains(o3, `"libvirt": {`) {
		t.Errorf("--libvirt on a snapshot without guests: exit %d", code)
	}
}

// audit --libvirt on a tree and audit --artifact DOMAIN.xml: the virt
// rules name the domain; a malformed domain artifact is exit 2 with its line.
func TestCLIAuditLibvirt(t *testing.T) {
	tree := cliTree(t)
	qemu := filepath.Join(tree, "etc", "libvirt", "qemu")
	if err := os.MkdirAll(qemu, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "internal", "facts", "testdata", "libvirt", "db2-rhel7-i440fx-defaults.xml")
	good, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(qemu, "db2.xml"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cliRun(t, "audit", "--root", tree, "--libvirt", "--db", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "audit --libvirt", out, "virt.disk-cache", "domain db2", "cache=writethrough",
		"virt.disk-emulated-bus", "virt.nic-emulated", "model e1000 (emulated)")
	code, out, errs = cliRun(t, "audit", "--root", tree, "--artifact", src, "--db", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "audit --artifact", out, "virt.disk-cache", "domain db2")
	bad := filepath.Join(t.TempDir(), "db9.xml")
	if err := os.WriteFile(bad, []byte("<domain type='kvm'>\n<name>db9</name>\n<devices>\n<disk type='file'>\n</devices>\n</domain>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = cliRun(t, "audit", "--root", tree, "--artifact", bad, "--db", "none")
	if code != 2 || !strings.Contains(errs, bad+":5: malformed XML") {
		t.Errorf("malformed artifact: exit %d: %s", code, errs)
	}
}
