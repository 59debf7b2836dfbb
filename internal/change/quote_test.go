package change

import (
	"os/exec"
	"strings"
	"testing"
)

// shellWord runs quoted through a POSIX shell (sh -c 'printf %s WORD') and
// returns what the shell made of it as printf's one argument.
func shellWord(t *testing.T, quoted string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", "printf %s "+quoted).Output()
	if err != nil {
		t.Fatalf("sh -c 'printf %%s %s': %v", quoted, err)
	}
	return string(out)
}

// The names of issue 24 and their kin: each comes back from the shell byte
// for byte, and nothing but printf runs (a ; or $( ) outside quotes would
// print more or fail).
func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{
		"sdk;touch IWASHERE;", "oracle;touch PWNED;#", "a b", "it's", "'", "''", `\`, `"$(id)"`, "`id`",
		"$HOME", "~root", "x\ny", "\x1b]0;title\x07", "a|b&c", "<in >out", "*", "?", "[a]", "{a,b}", "!x",
		"-n", "#c", "\t", " ", "\u202egpj.exe", "\xff\xfe", "é",
	} {
		if got := shellWord(t, Quote(s)); got != s {
			t.Errorf("Quote(%q) = %s: the shell read %q", s, Quote(s), got)
		}
	}
}

// Plain words stay as they are (the goldens' commands do not change); the
// empty string and anything with another character are quoted.
func TestQuotePlainWords(t *testing.T) {
	for s, want := range map[string]string{
		"sda":                                "sda",
		"/sys/block/sda/queue/scheduler":     "/sys/block/sda/queue/scheduler",
		"mq-deadline":                        "mq-deadline",
		"net.ipv4.conf.eth0/100.rp_filter=1": "net.ipv4.conf.eth0/100.rp_filter=1",
		"0-7,16-23":                          "0-7,16-23",
		"a+b@c%d:e":                          "a+b@c%d:e",
		"":                                   "''",
		"4096 87380":                         "'4096 87380'",
		"it's":                               `'it'\''s'`,
		"sdk;touch IWASHERE;":                "'sdk;touch IWASHERE;'",
	} {
		if got := Quote(s); got != want {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
	}
	if got := Echo("mq-deadline", "/sys/block/sdk;touch IWASHERE;/queue/scheduler"); got != "echo mq-deadline > '/sys/block/sdk;touch IWASHERE;/queue/scheduler'" {
		t.Errorf("Echo: %s", got)
	}
}

// FuzzQuote: for any name, Quote(name) read by a POSIX shell is one word,
// the name byte for byte. (A NUL cannot be in an argument, a path or a
// kernel name: left out.)
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"sda", "sdk;touch IWASHERE;", "oracle;touch PWNED;#", "it's", "a\nb", "\x1b[31m", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("a NUL cannot be in a shell argument")
		}
		q := Quote(s)
		if SafeWord(s) != (q == s) {
			t.Fatalf("Quote(%q) = %s: a safe word is left alone, anything else quoted", s, q)
		}
		if got := shellWord(t, q); got != s {
			t.Fatalf("Quote(%q) = %s: the shell read %q", s, q, got)
		}
	})
}
