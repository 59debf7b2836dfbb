// Package testhooks holds the switches the tests use to reach the failure
// paths of a real dbhost binary: kill it at a journal step, pause it there,
// play the kernel's reactions in a --root tree, panic in a command or a fact
// reader, confine without openat2.
//
// They exist only in a binary built with -tags testhooks (the crash and
// tamper tests build it through internal/testbin, the QEMU lab for its
// guests). In a plain build Enabled is the constant false, Getenv always
// returns "" and the code behind `if testhooks.Enabled` is compiled out:
// a stray DBHOST_TEST_KILL_AT in a production environment does nothing
// (cmd/dbhost's TestPlainBinaryIgnoresTestHooks proves it on the binary).
//
// Only the standard library is imported: every package may use it.
package testhooks

import "os"

// The variables, read only when Enabled (docs/apply.md, "Test hooks").
const (
	// KillAt=N: apply or rollback SIGKILLs itself right after its N-th step.
	KillAt = "DBHOST_TEST_KILL_AT"
	// PauseAt=N:FILE: apply or rollback stops after step N, creates
	// FILE.paused and waits until FILE exists.
	PauseAt = "DBHOST_TEST_PAUSE_AT"
	// Simulate=1: a --root tree also plays the kernel's own reactions
	// (internal/kernelsim).
	Simulate = "DBHOST_TEST_SIMULATE"
	// Panic=command panics in the command; Panic=reader:NAME in one fact
	// reader, Panic=worker:NAME in one of its workers; Panic=goroutine in
	// the first goroutine started with crash.Go.
	Panic = "DBHOST_TEST_PANIC"
	// PanicAt=N: apply or rollback panics right after its N-th step.
	PanicAt = "DBHOST_TEST_PANIC_AT"
	// NoOpenat2=1: confine with os.Root, as on kernels without openat2.
	NoOpenat2 = "DBHOST_TEST_NO_OPENAT2"
	// AIXLive=1: the live host is read as an AIX host (the collector's
	// commands run, found on PATH: stubs in the tests), whatever the OS.
	AIXLive = "DBHOST_TEST_AIX_LIVE"
	// SosCleanupPause=FILE: after SIGINT/SIGTERM during a --sosreport,
	// dbhost creates FILE.paused before removing the unpacked copy and
	// waits until FILE exists (a second signal is then sent there).
	SosCleanupPause = "DBHOST_TEST_SOS_CLEANUP_PAUSE"
	// ExporterLimits=conns=N,timeout=D: the exporter's connection cap and
	// every one of its timeouts (cmd/dbhost's exporter tests).
	ExporterLimits = "DBHOST_TEST_EXPORTER_LIMITS"
)

// Getenv is os.Getenv(name) in a testhooks build and "" in a plain one.
func Getenv(name string) string {
	if !Enabled {
		return ""
	}
	return os.Getenv(name)
}
