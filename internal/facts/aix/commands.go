package aix

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The collector's commands: the one list both collectors run, in order —
// scripts/dbhost-collect-aix.sh (its "the commands" block is generated
// from Steps by ScriptCommands; a test in internal/hostsrc fails when the
// committed script differs, and `go test ./internal/hostsrc -update`
// rewrites the block) and dbhost itself on an AIX host (hostsrc.RunAIX).
// Every command is read-only: it prints, it changes nothing.

// Step is one command of the collector, and the commands run for each
// device its output names.
type Step struct {
	Command string
	// Each, when set, runs its commands once per device of this step's
	// output (an lsdev listing) whose first column matches its pattern.
	Each *EachDevice
}

// EachDevice is a per-device loop: for every line of the step's output
// whose first field matches Pattern, each of Commands is run with the
// device name appended ("lsattr -El" + " hdisk3").
type EachDevice struct {
	Pattern  string // an ERE both awk and Go read the same way
	Var      string // the shell loop's variable
	Commands []string
}

// Steps are the collector's commands in the order they run (docs/aix.md).
var Steps = []Step{
	{Command: "oslevel -s"},
	{Command: "prtconf"},
	{Command: "lparstat -i"},
	{Command: "lssrad -av"},
	{Command: "smtctl"},
	{Command: "dscrctl -q"},
	{Command: "lsdev -Cc disk", Each: &EachDevice{Pattern: `^hdisk[0-9]+$`, Var: "d", Commands: []string{"lsattr -El"}}},
	{Command: "lspath"},
	{Command: "iostat -D 2 3"},
	{Command: "lsdev -Cc adapter", Each: &EachDevice{Pattern: `^fcs[0-9]+$`, Var: "a", Commands: []string{"lsattr -El", "fcstat -e"}}},
	{Command: "ioo -a"},
	{Command: "ioo -F -a"},
	{Command: "vmo -a"},
	{Command: "vmo -F -a"},
	{Command: "schedo -a"},
	{Command: "no -a"},
	{Command: "lsattr -El sys0"},
	{Command: "lsattr -El aio0"},
	{Command: "mount"},
	{Command: "lsfs -q"},
	{Command: "lsps -a"},
	{Command: "svmon -G"},
	{Command: "vmstat -v"},
	{Command: "lsuser -a capabilities oracle"},
	{Command: "lsrset -av"},
	{Command: "ps -ef"},
	{Command: "lssrc -ls clstrmgrES"},
}

// Commands are the steps' commands that take no device argument, in order.
var Commands = func() []string {
	var out []string
	for _, s := range Steps {
		out = append(out, s.Command)
	}
	return out
}()

// CommandTimeout is how long one command may run before the collector
// stops it and records it failed with exit 124 (the script's -t default).
// fcstat waits on an adapter whose link is down.
const CommandTimeout = 300 * time.Second

// TimeoutNote is the line a collector appends to the output of a command
// it stopped (the script and dbhost write the same line).
func TimeoutNote(seconds int) string {
	return "stopped after " + strconv.Itoa(seconds) + " s (the per-command time limit)"
}

// Devices are the device names an lsdev listing holds whose first field
// matches pattern (the script's awk '$1 ~ re { print $1 }').
func Devices(pattern string, listing []byte) []string {
	re := regexp.MustCompile(pattern)
	var out []string
	for _, l := range strings.Split(string(listing), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && re.MatchString(f[0]) {
			out = append(out, f[0])
		}
	}
	return out
}

// Script markers around the generated block of the collector script.
const (
	ScriptBegin = "# --- the commands: generated from internal/facts/aix/commands.go (go test ./internal/hostsrc -run CollectorScriptCommands -update); do not edit ---"
	ScriptEnd   = "# --- end of the commands ---"
)

// ScriptCommands is the collector script's block of commands, between
// ScriptBegin and ScriptEnd (both included, each line ending in "\n").
func ScriptCommands() string {
	var b strings.Builder
	b.WriteString(ScriptBegin + "\n")
	for _, s := range Steps {
		b.WriteString("run " + s.Command + "\n")
		if e := s.Each; e != nil {
			b.WriteString("for " + e.Var + " in $(devices '" + e.Pattern + "' \"$bundle/" + File(s.Command) + "\"); do\n")
			for _, c := range e.Commands {
				b.WriteString("\trun " + c + " \"$" + e.Var + "\"\n")
			}
			b.WriteString("done\n")
		}
	}
	b.WriteString(ScriptEnd + "\n")
	return b.String()
}
