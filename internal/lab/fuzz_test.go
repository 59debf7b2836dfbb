package lab

import (
	"bytes"
	"testing"
)

// FuzzParseChannel: whatever a guest (or a broken serial line) writes, the
// parser returns sections or an error, never panics, and never returns a
// section it could not decode.
func FuzzParseChannel(f *testing.F) {
	f.Add([]byte(encodeSection("collect", []byte(`{"schema_version":1}`), 0) + markDone + "\n"))
	f.Add([]byte(markBegin + "a\n" + markEnd + "a rc=0\n"))
	f.Add([]byte("plain console noise\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ch, err := parseChannel(b)
		if err != nil {
			return
		}
		for name, s := range ch.Sections {
			if name == "" || s.Name != name || s.RC < 0 || s.RC > 255 || len(s.Data) > maxSection {
				t.Fatalf("bad section %q: %+v", name, s)
			}
		}
	})
}

// FuzzParseKernelPackage: a package name comes back only from a Depends line
// and never carries spaces or shell/apt meta characters.
func FuzzParseKernelPackage(f *testing.F) {
	f.Add("linux-image-amd64\n  Depends: linux-image-6.1.0-56-amd64\n")
	f.Add(" |Depends: linux-image-6.12.9-amd64\n")
	f.Add("  Depends: <linux-image>\n")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseKernelPackage(s)
		if err != nil {
			return
		}
		if len(p) <= len("linux-image-") || p == "linux-image-amd64" || bytes.ContainsAny([]byte(p), " \t\n<>/") {
			t.Fatalf("bad package %q", p)
		}
	})
}

// FuzzXZPayload: any slice returned lies inside the input and starts with the XZ magic.
func FuzzXZPayload(f *testing.F) {
	f.Add(fakeBzImage(append(append([]byte{}, xzMagic...), 1, 2, 3), true))
	f.Add(fakeBzImage([]byte("no payload"), true))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := xzPayload(b)
		if err != nil {
			return
		}
		if !bytes.HasPrefix(p, xzMagic) || len(p) > len(b) {
			t.Fatalf("payload of %d bytes from %d", len(p), len(b))
		}
	})
}

// FuzzParseHugepageProbe: node lines are parsed or refused, never panic.
func FuzzParseHugepageProbe(f *testing.F) {
	f.Add("node 0 write=0 read=4\nnode 1 write=0 read=0\ncpuset mems=1 write=0 effective=0,2 root=0,2\n")
	f.Add("node 1 nofile\n")
	f.Add("cpuset =x\n")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseHugepageProbe(s)
		if err != nil {
			return
		}
		for n := range p.Nodes {
			if n < 0 {
				t.Fatalf("negative node %d", n)
			}
		}
	})
}
