package change

import "strings"

// Quote is dbhost's one shell quoter: every value that came from the host or
// a user's file (a device, interface, cgroup or instance name, a path, a
// value) goes through it before it is part of a command dbhost prints or
// writes (a rule's fix, a plan's script, place's commands, apply's
// messages). A plain word of safe characters ([A-Za-z0-9_./:=,+@%-], not
// empty) is left as it is, so ordinary commands stay readable; anything else
// is put in POSIX single quotes, each ' inside closing the quote, adding an
// escaped \' and opening it again. A POSIX shell
// reads the result back as exactly one word equal to s, byte for byte
// (FuzzQuote): no ; | & $ ` < > ( ) # * ? ~ newline or space in a name can
// become shell code.
func Quote(s string) string {
	if SafeWord(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteAll quotes each word (Quote) and joins them with spaces: a command
// line from its arguments.
func QuoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// SafeWord reports whether s is a non-empty word of characters no POSIX
// shell treats specially anywhere in a word: letters, digits and _ . / : = ,
// + @ % - (Quote leaves such a word unquoted).
func SafeWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:=,+@%-", c) >= 0) {
			return false
		}
	}
	return true
}

// Echo is the command that writes value to path: "echo VALUE > PATH", both
// quoted (Quote), the redirect's target too.
func Echo(value, path string) string {
	return "echo " + Quote(value) + " > " + Quote(path)
}
