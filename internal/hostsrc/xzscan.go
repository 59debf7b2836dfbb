package hostsrc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// xzInfo is what scanning an .xz file's structure tells before decoding it.
type xzInfo struct {
	maxDict  int64 // the largest LZMA2 dictionary a block asks for
	unpacked int64 // the sum of the LZMA2 chunks' unpacked sizes
}

// xzLimits bound a scan: it stops as soon as one is passed (0: no limit).
type xzLimits struct{ dict, unpacked int64 }

// over reports whether info passed a limit.
func (l xzLimits) over(info xzInfo) bool {
	return (l.dict > 0 && info.maxDict > l.dict) || (l.unpacked > 0 && info.unpacked > l.unpacked)
}

var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}

// scanXZ walks an .xz file (xz-file-format 1.1.0: streams of blocks, each
// block's LZMA2 chunks, the index, the footer, stream padding) without
// decoding it, to learn the dictionary each block will allocate and the
// bytes it will unpack. The decoder allocates the dictionary a block
// header asks for, up to 4 GiB, and unpacks whatever the chunks say: a
// small archive could ask for both. Structure errors are returned (the
// decoder would fail on them too); the checksums are left to the decoder.
func scanXZ(r io.Reader, lim xzLimits) (xzInfo, error) {
	br := &countReader{r: bufio.NewReaderSize(r, 1<<16)}
	var info xzInfo
	streams := 0
	for {
		// Stream padding (null bytes, in fours) before a stream or the end.
		pad := 0
		for {
			b, err := br.ReadByte()
			if err == io.EOF {
				if streams == 0 {
					return info, errors.New("xz: empty file")
				}
				if pad%4 != 0 {
					return info, errors.New("xz: stream padding is not a multiple of 4 bytes")
				}
				return info, nil
			}
			if err != nil {
				return info, err
			}
			if b != 0 {
				br.unread(b)
				break
			}
			pad++
		}
		if pad%4 != 0 {
			return info, errors.New("xz: stream padding is not a multiple of 4 bytes")
		}
		if err := scanXZStream(br, &info, lim); err != nil {
			return info, err
		}
		if lim.over(info) {
			return info, nil // stopped in the middle of the stream
		}
		streams++
	}
}

// checkSizes are the sizes of the check field by check type.
var checkSizes = [16]int{0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64}

func scanXZStream(br *countReader, info *xzInfo, lim xzLimits) error {
	head := make([]byte, 12)
	if _, err := io.ReadFull(br, head); err != nil {
		return fmt.Errorf("xz: stream header: %w", unexpected(err))
	}
	if !bytes.Equal(head[:6], xzMagic) {
		return errors.New("xz: not an xz stream (bad magic)")
	}
	if head[6] != 0 || head[7] > 0x0f {
		return errors.New("xz: unsupported stream flags")
	}
	checkSize := checkSizes[head[7]]
	for {
		start := br.n
		size, err := br.ReadByte()
		if err != nil {
			return fmt.Errorf("xz: block header: %w", unexpected(err))
		}
		if size == 0 { // the index indicator
			return scanXZIndexAndFooter(br, start)
		}
		hdr := make([]byte, (int(size)+1)*4-1)
		if _, err := io.ReadFull(br, hdr); err != nil {
			return fmt.Errorf("xz: block header: %w", unexpected(err))
		}
		dict, err := xzBlockDict(hdr)
		if err != nil {
			return err
		}
		if dict > info.maxDict {
			info.maxDict = dict
		}
		if lim.over(*info) {
			return nil
		}
		if err := scanLZMA2(br, info, lim); err != nil {
			return err
		}
		if lim.over(*info) {
			return nil
		}
		// Block padding to a multiple of 4, then the check.
		for (br.n-start)%4 != 0 {
			b, err := br.ReadByte()
			if err != nil {
				return fmt.Errorf("xz: block padding: %w", unexpected(err))
			}
			if b != 0 {
				return errors.New("xz: bad block padding")
			}
		}
		if _, err := br.discard(int64(checkSize)); err != nil {
			return fmt.Errorf("xz: block check: %w", unexpected(err))
		}
	}
}

// xzBlockDict returns the LZMA2 dictionary size a block header (after its
// size byte, CRC32 included) asks for.
func xzBlockDict(hdr []byte) (int64, error) {
	p := bytes.NewReader(hdr[:len(hdr)-4])
	flags, err := p.ReadByte()
	if err != nil {
		return 0, errors.New("xz: short block header")
	}
	if flags&0x3c != 0 {
		return 0, errors.New("xz: unsupported block flags")
	}
	if flags&0x40 != 0 {
		if _, err := readVarint(p); err != nil {
			return 0, err
		}
	}
	if flags&0x80 != 0 {
		if _, err := readVarint(p); err != nil {
			return 0, err
		}
	}
	nf := int(flags&3) + 1
	var dict int64 = -1
	for i := 0; i < nf; i++ {
		id, err := readVarint(p)
		if err != nil {
			return 0, err
		}
		psize, err := readVarint(p)
		if err != nil {
			return 0, err
		}
		if psize > uint64(p.Len()) {
			return 0, errors.New("xz: filter properties past the block header")
		}
		props := make([]byte, psize)
		p.Read(props)
		if id == 0x21 { // LZMA2, always the last filter
			if i != nf-1 || psize != 1 || props[0] > 40 {
				return 0, errors.New("xz: bad LZMA2 filter properties")
			}
			dict = lzma2Dict(props[0])
		}
	}
	if dict < 0 {
		return 0, errors.New("xz: a block without the LZMA2 filter")
	}
	return dict, nil
}

// lzma2Dict decodes an LZMA2 dictionary size byte (0..40).
func lzma2Dict(c byte) int64 {
	if c == 40 {
		return 1<<32 - 1
	}
	return int64(2|c&1) << (c/2 + 11)
}

// scanLZMA2 walks a block's LZMA2 chunks up to the end marker, adding
// their unpacked sizes.
func scanLZMA2(br *countReader, info *xzInfo, lim xzLimits) error {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return fmt.Errorf("xz: LZMA2 chunk: %w", unexpected(err))
		}
		var unpacked, packed int64
		var b [5]byte
		switch {
		case c == 0x00:
			return nil
		case c == 0x01 || c == 0x02:
			if _, err := io.ReadFull(br, b[:2]); err != nil {
				return fmt.Errorf("xz: LZMA2 chunk: %w", unexpected(err))
			}
			unpacked = int64(b[0])<<8 | int64(b[1]) + 1
			packed = unpacked
		case c >= 0x80:
			n := 4
			if c >= 0xc0 {
				n = 5 // a properties byte follows
			}
			if _, err := io.ReadFull(br, b[:n]); err != nil {
				return fmt.Errorf("xz: LZMA2 chunk: %w", unexpected(err))
			}
			unpacked = int64(c&0x1f)<<16 | int64(b[0])<<8 | int64(b[1]) + 1
			packed = int64(b[2])<<8 | int64(b[3]) + 1
		default:
			return fmt.Errorf("xz: bad LZMA2 control byte %#x", c)
		}
		info.unpacked += unpacked
		if lim.over(*info) {
			return nil
		}
		if _, err := br.discard(packed); err != nil {
			return fmt.Errorf("xz: LZMA2 chunk: %w", unexpected(err))
		}
	}
}

// scanXZIndexAndFooter skips a stream's index (its indicator already read,
// at offset start) and reads its footer.
func scanXZIndexAndFooter(br *countReader, start int64) error {
	n, err := readVarint(br)
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		if _, err := readVarint(br); err != nil {
			return err
		}
		if _, err := readVarint(br); err != nil {
			return err
		}
	}
	for (br.n-start)%4 != 0 {
		if b, err := br.ReadByte(); err != nil || b != 0 {
			return errors.New("xz: bad index padding")
		}
	}
	foot := make([]byte, 4+12)
	if _, err := io.ReadFull(br, foot); err != nil {
		return fmt.Errorf("xz: index and footer: %w", unexpected(err))
	}
	if foot[14] != 'Y' || foot[15] != 'Z' {
		return errors.New("xz: bad stream footer")
	}
	return nil
}

// readVarint reads an xz multibyte integer (at most 9 bytes, 63 bits).
func readVarint(r io.ByteReader) (uint64, error) {
	var v uint64
	for i := 0; i < 9; i++ {
		b, err := r.ReadByte()
		if err != nil {
			return 0, fmt.Errorf("xz: integer: %w", unexpected(err))
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			if b == 0 && i > 0 {
				return 0, errors.New("xz: integer not in its shortest form")
			}
			return v, nil
		}
	}
	return 0, errors.New("xz: integer longer than 9 bytes")
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// countReader counts the bytes read through it.
type countReader struct {
	r *bufio.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

func (c *countReader) unread(byte) {
	if c.r.UnreadByte() == nil {
		c.n--
	}
}

// discard skips n bytes (n is at most 64 KiB: a chunk, a check).
func (c *countReader) discard(n int64) (int64, error) {
	m, err := c.r.Discard(int(n))
	c.n += int64(m)
	if err == nil && int64(m) < n {
		err = io.ErrUnexpectedEOF
	}
	return int64(m), err
}
