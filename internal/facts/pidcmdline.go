package facts

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/dbhost/dbhost/internal/crash"
)

// cmdlineArgs splits /proc/PID/cmdline at NULs. A process that rewrote its
// argv (Oracle, PostgreSQL) may leave one argument holding spaces.
func cmdlineArgs(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\x00")
}

// cmdlineText joins arguments with spaces, truncated to maxCmdlineBytes on a
// UTF-8 boundary.
func cmdlineText(args []string) string {
	// A snapshot is sent to others (a ticket, a vendor): a password on a
	// process's command line (psql postgres://u:PW@db, a tool's
	// --password PW, a JDBC password=) is replaced first, before the cut
	// can leave a piece of it that no longer reads as one.
	s := strings.TrimSpace(strings.Join(crash.RedactArgs(args), " "))
	if len(s) <= maxCmdlineBytes {
		return s
	}
	// Cut before the rune that the limit falls into.
	cut := maxCmdlineBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
