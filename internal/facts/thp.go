package facts

import (
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// parseTHPChoice parses a THP choice file ("always [madvise] never"): the
// selected (bracketed) word and all words. Exactly one word must be bracketed.
func parseTHPChoice(s string) (selected string, all []string, err error) {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "[") || strings.HasSuffix(f, "]") {
			if len(f) < 3 || f[0] != '[' || f[len(f)-1] != ']' || strings.ContainsAny(f[1:len(f)-1], "[]") {
				return "", nil, parseErr(1, "expected words with one [selected], got %q", trunc(s, 60))
			}
			f = f[1 : len(f)-1]
			selected = f
			n++
		} else if strings.ContainsAny(f, "[]") {
			return "", nil, parseErr(1, "expected words with one [selected], got %q", trunc(s, 60))
		}
		all = append(all, f)
	}
	if n != 1 {
		return "", nil, parseErr(1, "expected exactly one [selected] word, got %q", trunc(s, 60))
	}
	return selected, all, nil
}

// parseTHPFlag parses a THP on/off file such as khugepaged/defrag: "0"/"1"
// on current kernels, "[yes] no" / "yes [no]" on older ones (RHEL 6, 2.6.38+).
func parseTHPFlag(s string) (int64, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "0":
		return 0, nil
	case "1":
		return 1, nil
	}
	sel, all, err := parseTHPChoice(s)
	if err == nil && len(all) == 2 && all[0] == "yes" && all[1] == "no" {
		if sel == "yes" {
			return 1, nil
		}
		return 0, nil
	}
	return 0, parseErr(1, "expected 0, 1, \"[yes] no\" or \"yes [no]\", got %q", trunc(s, 40))
}

func readTHP(c *Collector) snapshot.THP {
	var t snapshot.THP
	dir := sysTHP
	if !c.Root.Exists(sysTHP) && c.Root.Exists(sysTHPRedHat) {
		dir = sysTHPRedHat
	}
	if c.Root.Exists(dir) {
		t.Dir = dir
	}
	choice := func(fact, p string) (*string, []string) {
		s, err := c.Root.ReadString(p)
		if err != nil {
			c.Absent(fact, p, err)
			return nil, nil
		}
		sel, all, err := parseTHPChoice(s)
		if err != nil {
			c.Absent(fact, p, err)
			return nil, nil
		}
		return &sel, all
	}
	t.Enabled, t.EnabledOptions = choice("memory.thp.enabled", dir+"/enabled")
	t.Defrag, t.DefragOptions = choice("memory.thp.defrag", dir+"/defrag")
	t.ShmemEnabled, _ = choice("memory.thp.shmem_enabled", dir+"/shmem_enabled")
	p := dir + "/khugepaged/defrag"
	if s, err := c.Root.ReadString(p); err != nil {
		c.Absent("memory.thp.khugepaged_defrag", p, err)
	} else if v, err := parseTHPFlag(s); err != nil {
		c.Absent("memory.thp.khugepaged_defrag", p, err)
	} else {
		t.KhugepagedDefrag = &v
	}
	return t
}
