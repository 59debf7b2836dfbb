package facts

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestParseUdevAssigns(t *testing.T) {
	text := "# ATTR{queue/scheduler}=\"none\"\r\n" +
		"ACTION==\"add|change\", KERNEL==\"sd*\", ATTR{queue/scheduler}=\"mq-deadline\"\r\n" +
		"KERNEL==\"nvme*\", \\\n  ATTR{queue/read_ahead_kb}=\"4096\", ATTR{queue/scheduler}==\"none\"\n" +
		"KERNEL==\"vd*\", ATTR{queue/scheduler} = \"bfq\"\n"
	got := fmt.Sprint(ParseUdevAssigns(text, "queue/scheduler"))
	if want := "[{2 mq-deadline} {5 bfq}]"; got != want {
		t.Errorf("scheduler: %s, want %s (the == match and the comment are not assignments)", got, want)
	}
	if got := fmt.Sprint(ParseUdevAssigns(text, "queue/read_ahead_kb")); got != "[{3 4096}]" {
		t.Errorf("read_ahead_kb (a continued rule, from its first line): %s", got)
	}
}

// FuzzParseUdevAssigns: a rule assigning the value the fuzzer chose to the
// attribute it chose, put after the fuzzed text's lines (comment lines,
// continued or not), is found with its line and value; no assignment has a
// line outside the text or a quote in its value.
func FuzzParseUdevAssigns(f *testing.F) {
	f.Add("ACTION==\"add|change\", KERNEL==\"sd*\", ATTR{queue/scheduler}=\"mq-deadline\"\n", "queue/scheduler")
	f.Add("# ATTR{queue/scheduler}=\"none\"\nKERNEL==\"nvme*\", \\\n ATTR{queue/read_ahead_kb}=\"4096\", ATTR{queue/scheduler}==\"none\"\n", "queue/read_ahead_kb")
	f.Fuzz(func(t *testing.T, text, attr string) {
		n := strings.Count(strings.ReplaceAll(text, "\r\n", "\n"), "\n") + 1
		for _, a := range ParseUdevAssigns(text, attr) {
			if a.Line < 1 || a.Line > n || strings.Contains(a.Value, `"`) {
				t.Fatalf("%+v (of %d lines)", a, n)
			}
		}
		if attr == "" || strings.ContainsAny(attr, "}\"\\\r\n") {
			return
		}
		value := strconv.Itoa(len(text)) + "x"
		// The fuzzed text ends with a complete line, commented out so it cannot continue onto ours.
		var lines []string
		for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
			lines = append(lines, "# "+strings.TrimRight(l, "\\"))
		}
		doc := strings.Join(lines, "\n") + "\nKERNEL==\"sd*\", ATTR{" + attr + "}=\"" + value + "\"\n"
		as := ParseUdevAssigns(doc, attr)
		if len(as) != 1 || as[0].Line != len(lines)+1 || as[0].Value != value {
			t.Fatalf("ParseUdevAssigns(%q, %q) = %+v, want line %d value %q", doc, attr, as, len(lines)+1, value)
		}
	})
}
