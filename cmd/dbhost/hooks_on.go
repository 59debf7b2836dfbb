//go:build testhooks

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/kernelsim"
	"github.com/dbhost/dbhost/internal/testhooks"
)

// testHooks wires the crash tests' hooks into apply, verify and rollback
// (docs/apply.md, "Test hooks"); only a -tags testhooks build has them:
//
//   - DBHOST_TEST_SIMULATE=1: a --root tree plays the kernel's own reactions
//     (internal/kernelsim);
//   - DBHOST_TEST_KILL_AT=N: SIGKILL right after the N-th journal step;
//   - DBHOST_TEST_PANIC_AT=N: panic right after the N-th journal step (a bug
//     in the middle of a change: internal error, exit 1, the journal as a
//     kill -9 there leaves it);
//   - DBHOST_TEST_PAUSE_AT=N:FILE: stop after step N, create FILE.paused and
//     wait until FILE exists (the lock tests hold a run there).
func testHooks(o *apply.Options) error {
	if ts, ok := o.Sys.(apply.TreeSys); ok && testhooks.Getenv(testhooks.Simulate) == "1" {
		ts.Kernel = kernelsim.New(ts.Root)
		o.Sys = ts
	}
	// The crash hooks: after step N, SIGKILL or panic.
	for _, hook := range []struct {
		env string
		at  func(n int)
	}{
		{testhooks.KillAt, func(int) {
			if self, err := os.FindProcess(os.Getpid()); err == nil {
				_ = self.Kill() // SIGKILL
			}
			select {}
		}},
		{testhooks.PanicAt, func(n int) {
			panic(fmt.Sprintf("test panic after journal step %d (%s)", n, testhooks.PanicAt))
		}},
	} {
		v := testhooks.Getenv(hook.env)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return usageErr("%s=%q: expected a step number from 1", hook.env, v)
		}
		at := hook.at
		o.Step = func(k int) {
			if k == n {
				at(k)
			}
		}
	}
	if v := testhooks.Getenv(testhooks.PauseAt); v != "" {
		num, file, _ := strings.Cut(v, ":")
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || file == "" {
			return usageErr("%s=%q: expected STEP:FILE", testhooks.PauseAt, v)
		}
		o.Step = func(k int) {
			if k != n {
				return
			}
			_ = os.WriteFile(file+".paused", nil, 0o600)
			for {
				if _, err := os.Stat(file); err == nil {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	return nil
}
