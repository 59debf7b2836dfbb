// Package crash turns a panic, a bug in dbhost, into what the README
// promises: "internal error" with a request to report it, exit code 1 (not
// 2: the input was fine), and never a Go stack dump on the operator's
// terminal, least of all in the middle of a change. The stack goes to a
// file the message names, for the bug report.
//
// The command's panics are recovered by cmd/dbhost's run (the deferred
// functions of the command, its lock and journal, have run by then). A
// panic in another goroutine cannot unwind the command: goroutines that are
// not fact readers (those make a panic an absent fact) start with Go, whose
// recovery reports it the same way and ends the process with exit 1. Either
// way the journal is what a kill -9 at that point would leave: every write
// journaled before it was made, so verify and rollback work from it; the
// hints the command added (AddHint) say so with its own flags.
package crash

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/dbhost/dbhost/internal/testhooks"
)

// ReportURL is where internal errors are to be reported.
const ReportURL = "https://github.com/dbhost/dbhost/issues"

// ExitCode is the exit status of a process that panicked.
const ExitCode = 1

var (
	mu      sync.Mutex
	version = "unknown"
	argv    []string
	hints   []string
	once    sync.Once // one goroutine's report per process
	testGo  sync.Once
)

// Setup records what a report names: dbhost's version and command line,
// its secrets redacted (RedactArgs): the report is for a public issue.
func Setup(ver string, args []string) {
	red := RedactArgs(args)
	mu.Lock()
	defer mu.Unlock()
	version, argv = ver, red
}

// AddHint adds what the operator should do when the running command
// crashes from now on (a command that changes the host: how to verify and
// roll back what it did; a bench: how to remove what it created). A command
// run inside another (experiment runs its benches) adds its own to the
// outer one's.
func AddHint(h string) {
	h = Redact(h)
	mu.Lock()
	defer mu.Unlock()
	hints = append(hints, h)
}

// Hints returns the hints added so far, for SetHints.
func Hints() []string {
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), hints...)
}

// SetHints puts back what Hints returned (a command run inside another
// leaves the outer one's hints as they were).
func SetHints(hs []string) {
	mu.Lock()
	defer mu.Unlock()
	hints = append([]string(nil), hs...)
}

// Report writes the report of panic p to w: the panic value, the request to
// report it and the hint; the stack goes to a new file in the temporary
// directory, named in the report (only when no file can be written is the
// stack written to w: it must not be lost).
func Report(w io.Writer, p any, stack []byte) {
	mu.Lock()
	ver, args, hs := version, argv, append([]string(nil), hints...)
	mu.Unlock()
	pv := panicText(p)
	file, ferr := writeStack(ver, args, pv, stack)
	fmt.Fprintf(w, "dbhost: internal error: %s\n", pv)
	if ferr == nil {
		fmt.Fprintf(w, "dbhost: this is a bug in dbhost, not a problem with the input: please report it at %s with the file %s (the command line, its passwords replaced by %s, and the stack; dbhost %s)\n", ReportURL, file, Redacted, ver)
	} else {
		fmt.Fprintf(w, "dbhost: this is a bug in dbhost, not a problem with the input: please report it at %s with the command line 'dbhost %s' (its passwords replaced by %s) and the stack below (dbhost %s; it could not be saved to a file: %v)\n", ReportURL, strings.Join(args, " "), Redacted, ver, ferr)
	}
	for _, h := range hs {
		fmt.Fprintf(w, "dbhost: %s\n", h)
	}
	if ferr != nil {
		fmt.Fprintf(w, "\n%s", stack)
	}
}

// Error turns the panic p of one unit of work that must not end the
// process (an exporter's audit: the exporter keeps serving the previous
// one) into an error naming the panic, the file its stack was saved to and
// where to report it.
func Error(p any, stack []byte) error {
	mu.Lock()
	ver, args := version, argv
	mu.Unlock()
	pv := panicText(p)
	file, ferr := writeStack(ver, args, pv, stack)
	if ferr != nil {
		return fmt.Errorf("internal error: %s (a bug in dbhost %s: please report it at %s; its stack could not be saved: %v)", pv, ver, ReportURL, ferr)
	}
	return fmt.Errorf("internal error: %s (a bug in dbhost %s: please report it at %s with the file %s)", pv, ver, ReportURL, file)
}

// panicText is the panic's value as text, its secrets redacted (a panic
// may carry a connection string: a driver's, a format of a flag's value).
// Go's stack trace holds no string's contents, only pointers.
func panicText(p any) string {
	return Redact(fmt.Sprint(p))
}

// writeStack saves the report's details to dbhost-internal-error-*.txt in
// the temporary directory and returns its name. args were redacted by
// Setup, p by panicText.
func writeStack(ver string, args []string, p string, stack []byte) (string, error) {
	f, err := os.CreateTemp("", "dbhost-internal-error-*.txt")
	if err != nil {
		return "", err
	}
	_, err = fmt.Fprintf(f, "dbhost %s internal error\ntime: %s\ncommand: dbhost %s\ngo: %s %s/%s\npanic: %v\n\n%s",
		ver, time.Now().UTC().Format(time.RFC3339), strings.Join(args, " "), runtime.Version(), runtime.GOOS, runtime.GOARCH, p, stack)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// Go runs f in a new goroutine. A panic in f is reported (Report, to
// standard error) and ends the process with ExitCode: a goroutine's panic
// cannot unwind the command, and must not become Go's stack dump with exit
// status 2, the code for bad input.
func Go(f func()) {
	go func() {
		defer Recover()
		// DBHOST_TEST_PANIC=goroutine (a -tags testhooks build only): the
		// first goroutine started here panics.
		if testhooks.Enabled && testhooks.Getenv(testhooks.Panic) == "goroutine" {
			testGo.Do(func() { panic("test panic in a goroutine (" + testhooks.Panic + "=goroutine)") })
		}
		f()
	}()
}

// Recover, deferred first thing in a goroutine, reports its panic and ends
// the process with ExitCode (Go does it for the goroutines it starts). When
// several goroutines panic, the first reports and the others wait for it to
// end the process.
func Recover() {
	if p := recover(); p != nil {
		stack := debug.Stack()
		first := false
		once.Do(func() { first = true })
		if !first {
			select {}
		}
		Report(os.Stderr, p, stack)
		os.Exit(ExitCode)
	}
}
