package lab

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParseChannel: any bytes give sections with sane names and exit
// statuses or an error; and the channel /init writes (console noise, then
// sections gzip+base64 between BEGIN and END lines, LF or CRLF, then DONE)
// gives back every section's bytes and exit status, exactly.
func FuzzParseChannel(f *testing.F) {
	f.Add([]byte(encodeSection("collect", []byte(`{"schema_version":1}`), 0)+markDone+"\n"), "guest", []byte("node 0 write=0 read=4\n"), uint8(3))
	f.Add([]byte(markBegin+"a\n"+markEnd+"a rc=0\n"), "out/x", []byte{}, uint8(0))
	f.Add([]byte("plain console noise\n"), "collect", []byte{0, 0xff, '\n'}, uint8(255))
	f.Fuzz(func(t *testing.T, b []byte, name string, data []byte, rc uint8) {
		if ch, err := parseChannel(b); err == nil {
			for n, s := range ch.Sections {
				if n == "" || s.Name != n || s.RC < 0 || s.RC > 255 || len(s.Data) > maxSection {
					t.Fatalf("bad section %q: %+v", n, s)
				}
			}
		}

		// The console noise before the first section: the fuzzed lines that
		// are not channel markers.
		var noise strings.Builder
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "@@DBHOST-LAB") {
				noise.WriteString(l + "\n")
			}
		}
		// /init names sections after files: one word.
		name = strings.Join(strings.Fields(name), "_")
		if name == "" || strings.Contains(name, " rc=") {
			name = "guest"
		}
		in := noise.String() + encodeSection("collect", []byte(`{"schema_version":1}`), 0) + encodeSection(name+"-2", data, int(rc)) + markDone + "\n"
		ch, err := parseChannel([]byte(in))
		if err != nil {
			t.Fatalf("the channel /init writes does not parse: %v\n%q", err, in)
		}
		got, ok := ch.Sections[name+"-2"]
		if !ch.Done || !ok || !bytes.Equal(got.Data, data) || got.RC != int(rc) || len(ch.Sections) != 2 {
			t.Fatalf("round trip of %q (%d bytes, rc %d): done %v, %d sections, got %d bytes rc %d", name, len(data), rc, ch.Done, len(ch.Sections), len(got.Data), got.RC)
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
