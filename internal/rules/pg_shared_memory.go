package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// pgSharedMemoryKB is the size of PostgreSQL's main shared memory segment
// for a postgresql.conf, in KiB, and how it was had: the exact
// shared_memory_size_in_huge_pages × the page size when the file carries
// it (PostgreSQL 15+: `postgres -C shared_memory_size_in_huge_pages`),
// else an estimate from the settings. shared_buffers alone is short: a
// pool sized to it makes a huge_pages = on server refuse to start
// ("could not map anonymous shared memory"). The estimate adds, per
// PostgreSQL's own layout, the buffer bookkeeping (descriptors, I/O
// condition variables, checkpoint sort array, buffer mapping table: about
// 180 bytes per 8 KiB buffer, taken as 2.5 %), wal_buffers (auto: 1/32 of
// shared_buffers, 64 KiB to 16 MiB), 16 MiB of fixed structures (lock
// tables, SLRU buffers) and 64 KiB per max_connections (default 100).
// Against PostgreSQL 15's own count it errs high by under 1 %: 2 GiB with
// 120 connections, 1061 pages of 2 MiB needed, 1070 estimated; 4 GiB with
// 20, 2105 and 2116.
func pgSharedMemoryKB(c *artifacts.PGConf, sbBytes, pageKB int64) (int64, string) {
	if v, ok := c.Get("shared_memory_size_in_huge_pages"); ok && pageKB > 0 {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n > 0 {
			p, _ := c.Setting("shared_memory_size_in_huge_pages")
			return n * pageKB, fmt.Sprintf("%s:%d: shared_memory_size_in_huge_pages = %d", p.File, p.Line, n)
		}
	}
	sb := sbBytes / 1024
	wal := min(max(sb/32, 64), 16<<10)
	if b, ok, err := c.Bytes("wal_buffers", 8192); ok && err == nil && b > 0 {
		wal = b / 1024
	}
	conns := int64(100)
	if v, ok := c.Get("max_connections"); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n > 0 {
			conns = n
		}
	}
	kb := sb + sb/40 + wal + 16<<10 + 64*conns
	return kb, fmt.Sprintf("estimated %s: shared_buffers + 2.5 %% buffer bookkeeping + wal_buffers %s + 16 MiB fixed + 64 KiB × %d connections "+
		"(`postgres -C shared_memory_size_in_huge_pages` gives the exact page count on 15+)", KB(kb), KB(wal), conns)
}
