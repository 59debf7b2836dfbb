// Command lab runs the NUMA lab (scripts/lab): every scenario of
// internal/lab in a QEMU guest, one after another, with a pass/fail line
// each. Exit 0 only when all pass; a machine that cannot run the lab (QEMU,
// busybox-static or the kernel package missing) prints "SKIP: reason" and
// exits 77, the skip status of the suite protocol (scripts/lib/suite.sh).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/lab"
)

// exitSkip is the suite protocol's "skipped" status (scripts/lib/suite.sh).
const exitSkip = 77

func main() {
	cache := flag.String("cache", ".cache/lab", "cache directory (kernel, initramfs, run logs)")
	runRe := flag.String("run", "", "run only scenarios whose name matches this regexp")
	list := flag.Bool("list", false, "list the scenarios and exit")
	keep := flag.Bool("keep", false, "keep every run directory (console log, snapshot), not only failed ones")
	coverDir := flag.String("coverdir", "", "build dbhost with -cover and write the guests' coverage files here (go tool covdata)")
	flag.Parse()

	scen := lab.Scenarios()
	if *runRe != "" {
		re, err := regexp.Compile(*runRe)
		if err != nil {
			fmt.Fprintln(os.Stderr, "lab: -run:", err)
			os.Exit(2)
		}
		var sel []*lab.Scenario
		for _, s := range scen {
			if re.MatchString(s.Name) {
				sel = append(sel, s)
			}
		}
		if len(sel) == 0 {
			fmt.Fprintf(os.Stderr, "lab: no scenario matches %q\n", *runRe)
			os.Exit(2)
		}
		scen = sel
	}
	if *list {
		for _, s := range scen {
			fmt.Printf("%-22s %s\n", s.Name, s.Doc)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	repo, _ := os.Getwd()
	cacheDir, _ := filepath.Abs(*cache)

	unlock, err := lab.Lock(ctx, cacheDir, os.Stdout)
	if err != nil {
		fmt.Printf("FAIL lab: %v\n", err)
		os.Exit(1)
	}
	defer unlock()
	t0 := time.Now()
	po := lab.PrepareOptions{CacheDir: cacheDir, RepoDir: repo, Log: os.Stdout}
	if *coverDir != "" {
		if err := os.MkdirAll(*coverDir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "lab: -coverdir:", err)
			os.Exit(2)
		}
		po.CoverMode = "set" // go test -cover's mode: the counters merge with the unit tests'
	}
	a, err := lab.Prepare(ctx, po)
	var un *lab.Unavailable
	if errors.As(err, &un) {
		fmt.Printf("SKIP: NUMA lab: %s\n", un.Reason)
		unlock()
		os.Exit(exitSkip)
	}
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted (%v)", ctx.Err())
	}
	if err != nil {
		fmt.Printf("FAIL lab preparation: %v\n", err)
		unlock()
		os.Exit(1)
	}
	fmt.Printf("lab: kernel %s, dbhost %s, prepared in %.1fs\n", a.KernelPackage, a.DBHostSHA, time.Since(t0).Seconds())

	passed, failed := 0, 0
	for _, s := range scen {
		if ctx.Err() != nil {
			break
		}
		r := lab.Run(ctx, a, s, lab.RunOptions{Keep: *keep, CoverDir: *coverDir})
		if r.KernelPackage != "" {
			fmt.Printf("lab: %s boots %s\n", s.Name, r.KernelPackage)
		}
		for _, why := range r.BootRetries {
			fmt.Printf("lab: %s retried its boot: %s\n", s.Name, why)
		}
		if r.OK() {
			passed++
			fmt.Printf("PASS %-22s %5.1fs  %s\n", s.Name, r.Wall.Seconds(), s.Doc)
			if *keep {
				fmt.Printf("     run directory: %s\n", r.Dir)
			}
			continue
		}
		failed++
		fmt.Printf("FAIL %-22s %5.1fs  %s\n", s.Name, r.Wall.Seconds(), s.Doc)
		if r.Err != nil {
			fmt.Printf("     error: %s\n", indent(r.Err.Error()))
		}
		for _, m := range r.Mismatches {
			fmt.Printf("     mismatch: %s\n", m)
		}
		fmt.Printf("     console log: %s\n", filepath.Join(r.Dir, "console.log"))
	}
	fmt.Printf("lab: %.1fs in all\n", time.Since(t0).Seconds())
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 || ctx.Err() != nil {
		unlock()
		os.Exit(1)
	}
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n       ") }
