package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestNumericFlagGivenIsChecked: a numeric flag given a value below what
// it takes is exit 2 naming it, before anything runs; its default (0:
// automatic, -1: not bound) is never a value one may type ("--pid 0" from
// an unset $PID showed the whole host instead of a process). Every int
// flag of every command declares its smallest value (atLeast).
func TestNumericFlagGivenIsChecked(t *testing.T) {
	root := newRootCmd(nil, nil)
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() {
			return
		}
		path := strings.Fields(strings.TrimPrefix(c.CommandPath(), "dbhost"))
		c.Flags().VisitAll(func(f *pflag.Flag) {
			switch f.Value.Type() {
			case "int", "int64", "int32", "uint", "uint64":
			default:
				return
			}
			a, ok := f.Annotations[minAnnotation]
			if !ok {
				t.Errorf("dbhost %s --%s: an int flag without atLeast", strings.Join(path, " "), f.Name)
				return
			}
			min, _ := strconv.Atoi(a[0])
			for _, v := range []int{min - 1, -1 << 20} {
				args := append(append([]string{}, path...), "--"+f.Name, strconv.Itoa(v))
				code, _, errs := cliRun(t, args...)
				if want := fmt.Sprintf("--%s %d: ", f.Name, v); code != exitUsage || !strings.Contains(errs, want) {
					t.Errorf("dbhost %s: exit %d, %q; want exit 2 and %q", strings.Join(args, " "), code, errs, want)
				}
			}
			n++
		})
	}
	walk(root)
	if n < 10 {
		t.Errorf("only %d annotated int flags found", n)
	}

	tree := cliTree(t)
	code, out, errs := cliRun(t, "numa", "--pid", "0", "--root", tree)
	if code != exitUsage || !strings.Contains(errs, "--pid 0: PID must be > 0") || out != "" {
		t.Errorf("numa --pid 0: exit %d, stdout %.200q, stderr %q", code, out, errs)
	}
	if code, _, errs := cliRun(t, "numa", "--root", tree); code != 0 {
		t.Errorf("numa without --pid: exit %d, %s", code, errs)
	}
}
