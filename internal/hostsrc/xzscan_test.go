package hostsrc

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

// buildXZ returns a valid one-block .xz file (check type none) whose block
// asks for the LZMA2 dictionary of size code dictCode and holds data in
// LZMA2 uncompressed chunks: the shape of a dictionary bomb, made without
// an encoder.
func buildXZ(dictCode byte, data []byte) []byte {
	le32 := func(v uint32) []byte { b := make([]byte, 4); binary.LittleEndian.PutUint32(b, v); return b }
	varint := func(v uint64) []byte {
		var b []byte
		for v >= 0x80 {
			b = append(b, byte(v)|0x80)
			v >>= 7
		}
		return append(b, byte(v))
	}
	var out bytes.Buffer
	flags := []byte{0x00, 0x00} // check type none
	out.Write(xzMagic)
	out.Write(flags)
	out.Write(le32(crc32.ChecksumIEEE(flags)))
	// Block header: size byte, flags (one filter, no sizes), LZMA2 with its
	// dictionary byte, padding, CRC32.
	hdr := []byte{0x00, 0x00, 0x21, 0x01, dictCode}
	for (len(hdr)+4)%4 != 0 {
		hdr = append(hdr, 0)
	}
	hdr[0] = byte((len(hdr)+4)/4 - 1)
	hdr = append(hdr, le32(crc32.ChecksumIEEE(hdr))...)
	out.Write(hdr)
	comp := 0
	for i, rest := 0, data; len(rest) > 0; i++ {
		n := min(len(rest), 1<<16)
		ctl := byte(0x02)
		if i == 0 {
			ctl = 0x01 // the first chunk resets the dictionary
		}
		out.Write([]byte{ctl, byte((n - 1) >> 8), byte(n - 1)})
		out.Write(rest[:n])
		comp += 3 + n
		rest = rest[n:]
	}
	out.WriteByte(0x00)
	comp++
	unpadded := len(hdr) + comp
	for i := 0; (unpadded+i)%4 != 0; i++ {
		out.WriteByte(0)
	}
	index := append([]byte{0x00}, varint(1)...)
	index = append(index, varint(uint64(unpadded))...)
	index = append(index, varint(uint64(len(data)))...)
	for len(index)%4 != 0 {
		index = append(index, 0)
	}
	index = append(index, le32(crc32.ChecksumIEEE(index))...)
	out.Write(index)
	back := append(le32(uint32(len(index)/4-1)), flags...)
	out.Write(le32(crc32.ChecksumIEEE(back)))
	out.Write(back)
	out.WriteString("YZ")
	return out.Bytes()
}

// The crafted file is real xz: the decoder reads it back, and the scan
// sees its dictionary and size.
func TestBuildXZIsXZ(t *testing.T) {
	data := bytes.Repeat([]byte("dbhost "), 30000) // more than one 64 KiB chunk
	f := buildXZ(16, data)                         // 1 MiB dictionary
	r, err := xz.NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decoded %d bytes, %v", len(got), err)
	}
	info, err := scanXZ(bytes.NewReader(f), xzLimits{})
	if err != nil || info.maxDict != 1<<20 || info.unpacked != int64(len(data)) {
		t.Fatalf("scan = %+v, %v", info, err)
	}
	// Two streams with stream padding between them.
	two := append(append(append([]byte{}, f...), 0, 0, 0, 0), buildXZ(40, []byte("x"))...)
	info, err = scanXZ(bytes.NewReader(two), xzLimits{})
	if err != nil || info.maxDict != 1<<32-1 || info.unpacked != int64(len(data))+1 {
		t.Fatalf("two streams: %+v, %v", info, err)
	}
}

// A real xz file made by the encoder (several LZMA chunks).
func TestScanXZEncoded(t *testing.T) {
	var b bytes.Buffer
	w, err := xz.WriterConfig{DictCap: 4 << 20}.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(strings.Repeat("proc/sys/vm/swappiness 60\n", 100000))
	w.Write(data)
	w.Close()
	info, err := scanXZ(&b, xzLimits{})
	if err != nil || info.maxDict != 4<<20 || info.unpacked != int64(len(data)) {
		t.Fatalf("scan = %+v, %v", info, err)
	}
}

func TestScanXZErrors(t *testing.T) {
	good := buildXZ(8, []byte("hello"))
	for name, f := range map[string][]byte{
		"empty":         {},
		"magic":         append([]byte("not xz"), good[6:]...),
		"truncated":     good[:len(good)-7],
		"bad padding":   append(append([]byte{}, good...), 0, 0),
		"garbage after": append(append([]byte{}, good...), 1, 2, 3, 4),
		"bad dict code": buildXZ(41, []byte("x")),
		"bad control":   func() []byte { g := append([]byte{}, good...); g[24] = 0x05; return g }(),
	} {
		if _, err := scanXZ(bytes.NewReader(f), xzLimits{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// FuzzScanXZ: the scan never panics, never reports more unpacked bytes than
// the decoder yields on a file both accept, and stops at its limits.
func FuzzScanXZ(f *testing.F) {
	f.Add(buildXZ(8, []byte("hello")))
	f.Add(buildXZ(40, bytes.Repeat([]byte{0}, 70000)))
	var b bytes.Buffer
	w, _ := xz.NewWriter(&b)
	w.Write([]byte(strings.Repeat("abc", 1000)))
	w.Close()
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := scanXZ(bytes.NewReader(data), xzLimits{dict: 1 << 30, unpacked: 1 << 20})
		if err != nil || info.maxDict > 64<<20 {
			return
		}
		r, err := xz.NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		got, err := io.ReadAll(io.LimitReader(r, 2<<20))
		if err == nil && int64(len(got)) != info.unpacked && info.unpacked <= 1<<20 {
			t.Fatalf("scan says %d unpacked bytes, the decoder gave %d", info.unpacked, len(got))
		}
	})
}
