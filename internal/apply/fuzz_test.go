package apply

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/facts"
)

// FuzzParseJournal: any bytes parse without a panic; the damage is in line
// order; a torn tail (bytes after the last newline) never loses an entry of
// the complete lines before it and never turns into damage.
func FuzzParseJournal(f *testing.F) {
	f.Add([]byte(`{"seq":0,"state":"start","id":"X","time":"2026-01-01T00:00:00Z"}`+"\n"+
		`{"seq":1,"state":"begin","kind":"sysctl","key":"vm.swappiness","path":"/proc/sys/vm/swappiness","old":"60\n","new":"1"}`+"\n"+
		`{"seq":1,"state":"done","readback":"1"}`+"\n"), []byte(`{"seq":2,"state":"beg`))
	f.Add([]byte(`{"seq":0,"state":"start"}`+"\n"+`{"seq":0,"state":"rolled-back"}`+"\n"), []byte("{"))
	f.Add([]byte(""), []byte(`{"seq":1,"state":"begin","path":"/x"}`))
	data, _ := sampleJournal([]Entry{sampleBegin(1, "vm.swappiness", "60\n", "1")}, true)
	f.Add(data, []byte(`{"seq":0,"state":"end","sum":"0`))
	f.Fuzz(func(t *testing.T, complete, tail []byte) {
		j := ParseJournal(complete)
		for i := 1; i < len(j.Damage); i++ {
			if j.Damage[i].Line < j.Damage[i-1].Line {
				t.Fatalf("damage out of order: %v", j.Damage)
			}
		}
		if len(complete) > 0 && complete[len(complete)-1] != '\n' {
			return
		}
		if i := bytes.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[:i]
		}
		k := ParseJournal(append(append([]byte{}, complete...), tail...))
		if len(k.Writes) < len(j.Writes) {
			t.Fatalf("a torn tail lost writes: %d → %d", len(j.Writes), len(k.Writes))
		}
		for i, w := range j.Writes {
			if k.Writes[i].Begin.Path != w.Begin.Path || k.Writes[i].Begin.Old != w.Begin.Old {
				t.Fatalf("write %d changed with a torn tail", i)
			}
		}
		if (k.Torn || len(tail) == 0) && !reflect.DeepEqual(k.Damage, j.Damage) {
			t.Fatalf("a torn tail made damage: %v → %v", j.Damage, k.Damage)
		}
	})
}

// sampleBegin is a begin entry with a watched file.
func sampleBegin(seq int, key, old, new string) Entry {
	return Entry{Seq: seq, State: StateBegin, Kind: "sysctl", Key: key, Path: "/proc/sys/" + strings.ReplaceAll(key, ".", "/"),
		Old: old, New: new, Rule: "r", Watch: []Watched{{Path: "/proc/sys/vm/min_free_kbytes", Old: "45056\n"}}}
}

// sampleJournal encodes a format-2 journal of begin entries (each followed
// by its done entry, and the end entry when ended) and its head file.
func sampleJournal(begins []Entry, ended bool) (data, headFile []byte) {
	es := []Entry{{State: StateStart, Format: Format, ID: "20260101T000000.000000000Z", Root: "/t", Time: "2026-01-01T00:00:00Z"}}
	for _, b := range begins {
		es = append(es, b, Entry{Seq: b.Seq, State: StateDone, Readback: b.New})
	}
	if ended {
		es = append(es, Entry{State: StateEnd})
	}
	prev := chainSeed
	for _, e := range es {
		line, sum, err := encodeLine(e, prev)
		if err != nil {
			panic(err)
		}
		data = append(append(data, line...), '\n')
		prev = sum
	}
	headFile = head{Lines: len(es), Sum: prev}.record()
	return data, headFile
}

// corrupt applies one corruption to a journal: 0 cut at byte a, 1 flip a
// byte, 2 drop line a, 3 swap lines a and b, 4 repeat line a.
func corrupt(data []byte, op uint8, a, b uint16, x byte) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(data) == 0 || len(lines) == 0 {
		return data
	}
	la, lb := int(a)%len(lines), int(b)%len(lines)
	var out [][]byte
	switch op % 5 {
	case 0:
		return append([]byte{}, data[:int(a)%len(data)]...)
	case 1:
		if x == 0 {
			x = 1
		}
		c := append([]byte{}, data...)
		c[int(a)%len(c)] ^= x
		return c
	case 2:
		out = append(append(out, lines[:la]...), lines[la+1:]...)
	case 3:
		out = append(out, lines...)
		out[la], out[lb] = out[lb], out[la]
	case 4:
		out = append(append(append(out, lines[:la+1]...), lines[la]), lines[la+1:]...)
	}
	return bytes.Join(out, nil)
}

// FuzzJournalCorruption: a format-2 journal with one corruption (cut
// anywhere, a flipped byte, a line dropped, two lines swapped, a line
// repeated) either reads back exactly as written, or is damaged; and every
// write it still trusts (the ones a rollback would restore) is exactly a
// write of the original. So a rollback restores a value exactly or stops
// and reports it: never a value that was not journaled, never a silent loss.
func FuzzJournalCorruption(f *testing.F) {
	f.Add("vm.swappiness", "60\n", "1", uint8(3), true, uint8(0), uint16(100), uint16(0), byte(1))
	f.Add("kernel.numa_balancing", "1\n", "0", uint8(2), false, uint8(1), uint16(50), uint16(0), byte(0x20))
	f.Add("vm.dirty_ratio", "20\n", "15", uint8(2), true, uint8(2), uint16(2), uint16(0), byte(0))
	f.Add("vm.dirty_ratio", "20\n", "15", uint8(2), true, uint8(3), uint16(1), uint16(3), byte(0))
	f.Add("vm.dirty_ratio", "20\n", "15", uint8(2), true, uint8(4), uint16(3), uint16(0), byte(0))
	f.Fuzz(func(t *testing.T, key, old, new string, n uint8, ended bool, op uint8, a, b uint16, x byte) {
		var begins []Entry
		for i := 0; i < int(n%4)+1; i++ {
			begins = append(begins, sampleBegin(i+1, fmt.Sprintf("%s%d", key, i), old+fmt.Sprint(i), new))
		}
		data, hf := sampleJournal(begins, ended)
		orig := ParseJournal(data)
		orig.checkHead(hf, nil)
		if orig.Damaged() || len(orig.Writes) != len(begins) {
			t.Fatalf("the intact journal: damage %v, %d writes", orig.Damage, len(orig.Writes))
		}
		bad := corrupt(data, op, a, b, x)
		j := ParseJournal(bad)
		j.checkHead(hf, nil)
		same := func(w *Write) bool {
			for _, o := range orig.Writes {
				if o.Begin.Seq == w.Begin.Seq {
					return reflect.DeepEqual(o.Begin, w.Begin)
				}
			}
			return false
		}
		for _, w := range j.Writes {
			if j.Trusted(w) && !same(w) {
				t.Fatalf("trusted write %+v is not the original's (corruption %d at %d/%d)", w.Begin, op%5, a, b)
			}
		}
		if j.Damaged() {
			return
		}
		if len(j.Writes) != len(orig.Writes) || j.Ended != orig.Ended {
			t.Fatalf("corruption %d at %d/%d undetected: %d writes (want %d), ended %v (want %v)\n%s",
				op%5, a, b, len(j.Writes), len(orig.Writes), j.Ended, orig.Ended, bad)
		}
	})
}

// FuzzMergeLimits: merging is idempotent, keeps every line it does not
// own, and the result holds the wanted values.
func FuzzMergeLimits(f *testing.F) {
	f.Add("", "oracle soft memlock", "unlimited")
	f.Add("# c\noracle soft memlock 1024 # x\n*  hard nofile 65536\noracle soft memlock 2048\n", "oracle soft memlock", "unlimited")
	f.Add("oracle hard memlock 10", "oracle  hard  memlock", "20")
	f.Fuzz(func(t *testing.T, text, key, value string) {
		lines := []LimitLine{{Key: key, Value: value}}
		got := MergeLimits(text, lines)
		if again := MergeLimits(got, lines); again != got {
			t.Fatalf("not idempotent:\n%q\n%q", got, again)
		}
		k := strings.Join(strings.Fields(key), " ")
		if ValidLimit(key, value) {
			if v := LimitsValues(got)[k]; v != strings.TrimSpace(value) {
				t.Fatalf("%q holds %q for %q, want %q:\n%s", got, v, k, value, got)
			}
		}
	})
}

// FuzzTreeContent: no panic; a choice file keeps its words and selects
// exactly the written one; other files hold the value.
func FuzzTreeContent(f *testing.F) {
	f.Add("[none] mq-deadline kyber bfq\n", "bfq")
	f.Add("always [madvise] never", "never")
	f.Add("60\n", "1")
	f.Add("4096\t87380\t6291456\n", "4096 87380 16777216")
	f.Fuzz(func(t *testing.T, old, value string) {
		got, err := TreeContent(old, value)
		if err != nil {
			return
		}
		if strings.HasSuffix(old, "\n") != strings.HasSuffix(got, "\n") && strings.TrimSpace(value) != "" {
			t.Fatalf("newline not kept: %q → %q", old, got)
		}
		if _, _, ok := facts.Bracketed(old); ok {
			if Value(got) != strings.TrimSpace(value) {
				t.Fatalf("%q after writing %q selects %q", got, value, Value(got))
			}
		}
	})
}

// FuzzSame: no panic; Same is reflexive and symmetric.
func FuzzSame(f *testing.F) {
	f.Add("/sys/fs/cgroup/db.slice/cpuset.cpus", "2-7\n", "2,3,4,5,6,7")
	f.Add("/sys/block/sda/queue/scheduler", "[none] mq-deadline", "none")
	f.Add("/proc/sys/net/ipv4/tcp_rmem", "4096\t87380\t6291456\n", "4096 87380 6291456")
	f.Fuzz(func(t *testing.T, p, a, b string) {
		if !Same(p, a, a) {
			t.Fatalf("Same(%q, %q, itself) is false", p, a)
		}
		if Same(p, a, b) != Same(p, b, a) {
			t.Fatalf("Same(%q) not symmetric for %q, %q", p, a, b)
		}
	})
}
