package crash

import (
	"regexp"
	"strings"
)

// Redacted replaces a secret in what Redact and RedactArgs return (the same
// mark as internal/livedb's scrubbed errors).
const Redacted = "xxxxx"

// A crash file is attached to a public issue, and the command line it
// records is the one the operator typed: `audit --pg
// postgres://mon:SECRET@db1/postgres`, `bench db --dsn "host=db1
// password='x y'"`, `--mysql 'mon:SECRET@tcp(db1:3306)/'`. Redact and
// RedactArgs take out what a connection string or a flag holds as a
// password, in each form the drivers dbhost uses accept (pgx: URL and
// key=value; go-sql-driver/mysql: user:password@proto(addr)/db), before
// anything records or prints it. They err on the side of removing too much:
// a value after a key that looks like a password is always removed.

// secretName ends a key whose value is a secret: password=, sslpassword=,
// PGPASSWORD=, MYSQL_PWD=, --password=, --pass=, passwd=, secret=, token=.
const secretName = `(?i:pass(?:word|wd)?|pwd|secret|token)`

var (
	// keyValue: KEY = (the value follows; valueEnd finds its end).
	keyValue = regexp.MustCompile(`[A-Za-z0-9_.-]*` + secretName + `\s*=\s*`)
	// secretFlag: a flag naming a secret (--password, --db-pass), its
	// value the next word.
	secretFlag = regexp.MustCompile(`(?:^|\s)-{1,2}(?:[A-Za-z0-9]+[-_])*` + secretName + `\s+`)
	// secretFlagArg: the same flag as one argument (its value the next one).
	secretFlagArg = regexp.MustCompile(`^-{1,2}(?:[A-Za-z0-9]+[-_])*` + secretName + `$`)
	// urlScheme starts a URL (postgres://, postgresql://, mysql://, qemu+ssh://).
	urlScheme = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://`)
	// kvStart: a key=value connection string (libpq's) starts with a key.
	kvStart = regexp.MustCompile(`^\s*[A-Za-z_]+\s*=`)
	// mysqlDSN: go-sql-driver/mysql's user:password@proto(addr)/db or
	// user:password@/db, from the start of a word. The password is greedy
	// (it may hold ':' and '@': the driver splits at the last '@' before
	// the address) but stops at white space.
	// The '/' after the '@' is not a second one: jdbc:oracle:thin:@//db1
	// is Oracle's EZConnect, not the password "oracle:thin:".
	mysqlDSN = regexp.MustCompile(`(^|[\s'"=,;])([^\s:@'"=/;,]*):(\S*)@((?:[A-Za-z0-9]*\([^)\s]*\))?/(?:[^/]|$))`)
	// oracleLogon: Oracle's user/password@connect (sqlplus, expdp, a JDBC
	// thin URL's jdbc:oracle:thin:user/password@host), from the start of a
	// word. A password holding '/', '@' or a blank is quoted there
	// ("p@ss"): redacted to its closing quote.
	oracleLogon = regexp.MustCompile(`(^|[\s'"=:])([A-Za-z][A-Za-z0-9_$#]*)/("[^"]*"|[^\s/@'"]+)@`)
	// mysqlAddr: what follows the '@' of a MySQL DSN.
	mysqlAddr = regexp.MustCompile(`^(?:[A-Za-z0-9]*\([^)]*\))?/`)
)

// Redact returns s (a command line, a flag's value, a message) with every
// secret it recognises replaced by Redacted: the password of a URL
// (scheme://user:PASSWORD@host), the value of a key=value password
// (password=PW, password = 'a b\'c', PGPASSWORD=PW, --password=PW,
// ?password=PW&...), the word after a password flag (--password PW), and
// the password of a MySQL DSN (user:PW@tcp(host:3306)/db) and of an
// Oracle logon (user/PW@db, user/"P@W"@db).
func Redact(s string) string {
	if !maySecret(s) {
		return s // most words of a command line: no regular expression run
	}
	// The structured forms first: a URL's or a MySQL DSN's password may
	// hold "password=".
	s = redactURLs(s)
	s = mysqlDSN.ReplaceAllStringFunc(s, func(m string) string {
		sm := mysqlDSN.FindStringSubmatch(m)
		if strings.HasPrefix(sm[3], "//") {
			// A URL (scheme://...): redactURLs's. A MySQL password
			// starting with "//" is redacted where it is known to be
			// a DSN: the value of --mysql (RedactArgs).
			return m
		}
		return sm[1] + sm[2] + ":" + Redacted + "@" + sm[4]
	})
	s = oracleLogon.ReplaceAllString(s, "${1}${2}/"+Redacted+"@")
	s = redactKeyValues(s)
	return redactFlagWords(s)
}

// RedactArgs returns a copy of a command line (os.Args[1:]) with its
// secrets redacted: each argument as Redact does, the value of --pg,
// --mysql and --dsn as one connection string (a password with white space
// in it included), and the argument after a password flag (--password PW).
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	var valueOf string // the flag whose value is the next argument
	for i, a := range args {
		switch {
		case valueOf == "--mysql":
			out[i] = redactMySQL(a)
		case valueOf != "" && isDSNFlag(valueOf):
			out[i] = RedactDSN(a)
		case valueOf != "":
			out[i] = Redacted
		default:
			name, v, ok := strings.Cut(a, "=")
			switch {
			case ok && name == "--mysql":
				out[i] = name + "=" + redactMySQL(v)
			case ok && isDSNFlag(name):
				out[i] = name + "=" + RedactDSN(v)
			case ok && secretFlagArg.MatchString(name):
				out[i] = name + "=" + Redacted // the whole rest: --password='a b'
				_ = v
			default:
				out[i] = Redact(a)
			}
		}
		if valueOf != "" {
			valueOf = ""
		} else if isDSNFlag(a) || maySecret(a) && secretFlagArg.MatchString(a) {
			valueOf = a
		}
	}
	return out
}

// maySecret: s may hold a secret Redact finds (every form has a '=' or an
// '@', or names the secret: --password PW).
func maySecret(s string) bool {
	if strings.ContainsAny(s, "=@") {
		return true
	}
	l := strings.ToLower(s)
	for _, w := range []string{"pass", "pwd", "secret", "token"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// isDSNFlag: the flags whose value is a connection string.
func isDSNFlag(a string) bool {
	switch a {
	case "--pg", "--mysql", "--dsn":
		return true
	}
	return false
}

// RedactDSN returns a connection string, the whole of it one value (a
// password may hold white space there), with its password redacted: a URL,
// a key=value string or a MySQL DSN.
func RedactDSN(dsn string) string {
	if m := urlScheme.FindStringIndex(dsn); m != nil && strings.TrimSpace(dsn[:m[0]]) == "" {
		// A URL: its authority ends at the first '/', '?' or '#' (a
		// password with white space in it is still the password).
		end := m[1]
		for end < len(dsn) && !strings.ContainsRune("/?#", rune(dsn[end])) {
			end++
		}
		auth := dsn[m[1]:end]
		at := strings.LastIndex(auth, "@")
		if at < 0 {
			return Redact(dsn)
		}
		if colon := strings.Index(auth[:at], ":"); colon >= 0 {
			return Redact(dsn[:m[1]+colon+1] + Redacted + dsn[m[1]+at:])
		}
		// Credentials without a password, as a URL: it may be a MySQL
		// DSN whose password starts with "//" (mon://x@tcp(db1)/).
	}
	if !kvStart.MatchString(dsn) {
		return redactMySQL(dsn)
	}
	return Redact(dsn)
}

// redactMySQL redacts a go-sql-driver/mysql DSN, the whole of it one value:
// the dbname after the last '/', the address before it, the credentials
// before the last '@' ahead of it, the user before the first ':' of those.
func redactMySQL(dsn string) string {
	if slash := strings.LastIndex(dsn, "/"); slash > 0 {
		if at := strings.LastIndex(dsn[:slash], "@"); at > 0 && mysqlAddr.MatchString(dsn[at+1:]) {
			if colon := strings.Index(dsn[:at], ":"); colon >= 0 {
				return Redact(dsn[:colon+1] + Redacted + dsn[at:])
			}
		}
	}
	return Redact(dsn)
}

// redactKeyValues replaces the value after every KEY= whose key names a
// secret.
func redactKeyValues(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range keyValue.FindAllStringIndex(s, -1) {
		if m[0] < last {
			continue // inside a value already replaced
		}
		query := m[0] > 0 && (s[m[0]-1] == '?' || s[m[0]-1] == '&')
		end := valueEnd(s, m[1], query)
		b.WriteString(s[last:m[1]])
		b.WriteString(Redacted)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// redactFlagWords replaces the word after a password flag (--password PW).
func redactFlagWords(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range secretFlag.FindAllStringIndex(s, -1) {
		if m[0] < last || m[1] >= len(s) {
			continue
		}
		end := valueEnd(s, m[1], false)
		b.WriteString(s[last:m[1]])
		b.WriteString(Redacted)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// valueEnd returns where the value starting at s[i] ends: after its closing
// quote when it is quoted ('...' with libpq's \' and \\, or "..."), else
// at white space (and, in a URL's query, at '&' or '#').
func valueEnd(s string, i int, query bool) int {
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		q := s[i]
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case q:
				return j + 1
			}
		}
		return len(s) // no closing quote: the rest may all be the secret
	}
	j := i
	for j < len(s) && !isSpace(s[j]) && !(query && (s[j] == '&' || s[j] == '#')) {
		j++
	}
	return j
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// redactURLs replaces the password of every scheme://user:PASSWORD@host.
// The authority ends at the first '/', '?', '#', white space or quote; the
// credentials at its last '@' (Go's url.Parse, pgx's, splits there), the
// user at their first ':'.
func redactURLs(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range urlScheme.FindAllStringIndex(s, -1) {
		if m[0] < last {
			continue
		}
		start := m[1]
		end := start
		for end < len(s) && !strings.ContainsRune("/?#'\"", rune(s[end])) && !isSpace(s[end]) {
			end++
		}
		auth := s[start:end]
		at := strings.LastIndex(auth, "@")
		if at < 0 {
			continue
		}
		colon := strings.Index(auth[:at], ":")
		if colon < 0 || auth[colon+1:at] == Redacted {
			continue
		}
		b.WriteString(s[last : start+colon+1])
		b.WriteString(Redacted)
		last = start + at
	}
	b.WriteString(s[last:])
	return b.String()
}
