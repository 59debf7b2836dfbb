package aix

import (
	"github.com/dbhost/dbhost/internal/lazyre"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// oslevelRe is `oslevel -s`'s answer: VVVV-TT-SS-YYWW (5300-12-04-1119,
// 7200-05-03-2148); AIX 5.2 and early 5.3 print no build week.
var oslevelRe = lazyre.New(`^[0-9]{4}-[0-9]{2}(-[0-9]{2})?(-[0-9]{4})?$`)

// parseOSLevel reads `oslevel -s`: the one level line (a warning such as
// oslevel's "not all filesets" note may precede it).
func parseOSLevel(s string) (string, notes, error) {
	var n notes
	for i, l := range lines(s) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if oslevelRe().MatchString(l) {
			return l, n, nil
		}
		n.add(i+1, "expected a level such as 7200-05-03-2148, got %q", trunc(l, 40))
	}
	return "", n, parseErr(0, "no level (VVVV-TT-SS-YYWW, such as 7200-05-03-2148) in the output")
}

// keyValues reads "Label : value" lines (lparstat -i, with the colon padded)
// or "Label: value" (prtconf); lines without a colon are returned as notes
// by the callers that care. Indented lines are kept when indented is true.
func keyValue(l string) (key, val string, ok bool) {
	k, v, ok := strings.Cut(l, ":")
	if !ok {
		return "", "", false
	}
	k = strings.Join(strings.Fields(k), " ")
	if k == "" {
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}

// smtTypeRe reads lparstat's Type: Dedicated, Shared, Dedicated-SMT,
// Shared-SMT (POWER5/6: two threads), Shared-SMT-4, Dedicated-SMT-8.
var smtTypeRe = lazyre.New(`^(Dedicated|Shared)(-SMT(-([0-9]+))?)?$`)

// parseLparstat reads `lparstat -i`: "Label   : value" lines.
func parseLparstat(s string) (*snapshot.AIXLPAR, notes, error) {
	var n notes
	lp := &snapshot.AIXLPAR{Fields: map[string]string{}}
	for i, l := range lines(s) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		k, v, ok := keyValue(l)
		if !ok {
			n.add(i+1, "expected \"Label : value\", got %q", trunc(l, 40))
			continue
		}
		lp.Fields[k] = v
		num := func() (int, bool) {
			if v == "-" {
				return 0, false
			}
			x, ok := atoi(strings.TrimSuffix(v, " MB"))
			if !ok {
				n.add(i+1, "%s: expected a number, got %q", k, trunc(v, 30))
			}
			return x, ok
		}
		switch k {
		case "Partition Name":
			lp.Name = v
		case "Node Name":
			lp.NodeName = v
		case "Partition Number":
			if x, ok := num(); ok {
				lp.Number = &x
			}
		case "Type":
			lp.Type = v
			if m := smtTypeRe().FindStringSubmatch(v); m != nil {
				lp.Shared = ptr(m[1] == "Shared")
				smt := 1
				switch {
				case m[4] != "":
					smt, _ = strconv.Atoi(m[4])
				case m[2] != "":
					smt = 2
				}
				lp.SMT = &smt
			} else {
				n.add(i+1, "Type: expected Dedicated or Shared[-SMT[-N]], got %q", trunc(v, 30))
			}
		case "Mode":
			lp.Mode = v
		case "Entitled Capacity":
			if f, ok := parseFloat(v); ok && f >= 0 {
				lp.EntitledCapacity = &f
			} else if v != "-" {
				n.add(i+1, "Entitled Capacity: expected processor units, got %q", trunc(v, 30))
			}
		case "Online Virtual CPUs":
			if x, ok := num(); ok {
				lp.OnlineVCPUs = &x
			}
		case "Maximum Virtual CPUs":
			if x, ok := num(); ok {
				lp.MaxVCPUs = &x
			}
		case "Online Memory":
			if x, ok := sizeMB(v); ok {
				lp.OnlineMemoryMB = &x
			} else if v != "-" {
				n.add(i+1, "Online Memory: expected a size in MB, got %q", trunc(v, 30))
			}
		case "Maximum Memory":
			if x, ok := sizeMB(v); ok {
				lp.MaxMemoryMB = &x
			}
		case "Shared Pool ID":
			if x, ok := num(); ok {
				lp.SharedPoolID = &x
			}
		case "Variable Capacity Weight":
			if x, ok := num(); ok {
				lp.VariableWeight = &x
			}
		case "Active Physical CPUs in system":
			if x, ok := num(); ok {
				lp.PhysicalCPUsInSystem = &x
			}
		case "Memory Mode":
			lp.MemoryMode = v
		}
	}
	if len(lp.Fields) == 0 || lp.Type == "" && lp.Name == "" {
		return nil, n, parseErr(0, "no \"Partition Name\" or \"Type\" line: not lparstat -i output")
	}
	return lp, n, nil
}

// parsePrtconf reads the summary at the top of `prtconf`: the "Label:
// value" lines before its first section ("Network Information", the
// volume groups, "INSTALLED RESOURCE LIST"); indented lines belong to a
// section and are not read.
func parsePrtconf(s string) (*snapshot.AIXPrtconf, notes, error) {
	var n notes
	pc := &snapshot.AIXPrtconf{Fields: map[string]string{}}
	for i, l := range lines(s) {
		t := strings.TrimSpace(l)
		if t == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		if strings.HasPrefix(t, "INSTALLED RESOURCE LIST") {
			break
		}
		k, v, ok := keyValue(t)
		if !ok || v == "" {
			continue // section headings, table headers
		}
		pc.Fields[k] = v
		mb := func(dst **int64) {
			if x, ok := sizeMB(v); ok {
				*dst = &x
			} else {
				n.add(i+1, "%s: expected a size in MB, got %q", k, trunc(v, 30))
			}
		}
		switch k {
		case "System Model":
			pc.SystemModel = v
		case "Processor Type":
			pc.ProcessorType = v
		case "Processor Implementation Mode":
			pc.ImplementationMode = v
		case "Processor Version":
			pc.ProcessorVersion = v
		case "Number Of Processors":
			if x, ok := atoi(v); ok {
				pc.Processors = &x
			} else {
				n.add(i+1, "Number Of Processors: expected a count, got %q", trunc(v, 30))
			}
		case "Processor Clock Speed":
			if x, ok := parseInt(strings.TrimSuffix(v, " MHz")); ok && x >= 0 {
				pc.ClockMHz = &x
			} else {
				n.add(i+1, "Processor Clock Speed: expected N MHz, got %q", trunc(v, 30))
			}
		case "Kernel Type":
			pc.KernelType = v
		case "Memory Size":
			mb(&pc.MemoryMB)
		case "Good Memory Size":
			mb(&pc.GoodMemoryMB)
		case "Platform Firmware level":
			pc.Firmware = v
		}
	}
	if len(pc.Fields) == 0 {
		return nil, n, parseErr(0, "no \"Label: value\" summary line (System Model, Processor Type, ...): not prtconf output")
	}
	return pc, n, nil
}

var (
	smtProcRe = lazyre.New(`^(proc[0-9]+) has ([0-9]+) SMT threads?\.?$`)
	smtBindRe = lazyre.New(`^Bind processor ([0-9]+) is bound with (proc[0-9]+)\.?$`)
	smtMaxRe  = lazyre.New(`supports up to ([0-9]+) SMT threads? per processor`)
)

// parseSmtctl reads `smtctl`'s report.
func parseSmtctl(s string) (*snapshot.AIXSMT, notes, error) {
	var n notes
	smt := &snapshot.AIXSMT{Procs: []snapshot.AIXSMTProc{}}
	idx := map[string]int{}
	known := false
	for i, l := range lines(s) {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case strings.Contains(t, "is not SMT capable"):
			smt.Capable, known = ptr(false), true
		case strings.Contains(t, "is SMT capable"):
			smt.Capable, known = ptr(true), true
		case smtMaxRe().MatchString(t):
			x, _ := strconv.Atoi(smtMaxRe().FindStringSubmatch(t)[1])
			smt.MaxThreads, known = &x, true
		case strings.HasPrefix(t, "SMT is currently enabled"):
			smt.Enabled, known = ptr(true), true
		case strings.HasPrefix(t, "SMT is currently disabled"):
			smt.Enabled, known = ptr(false), true
		case strings.HasPrefix(t, "SMT boot mode is "):
			smt.BootMode, known = strings.TrimSuffix(strings.TrimPrefix(t, "SMT boot mode is "), "."), true
		case smtProcRe().MatchString(t):
			m := smtProcRe().FindStringSubmatch(t)
			x, _ := strconv.Atoi(m[2])
			if _, dup := idx[m[1]]; !dup {
				idx[m[1]] = len(smt.Procs)
				smt.Procs = append(smt.Procs, snapshot.AIXSMTProc{Name: m[1], Threads: x, BindCPUs: []int{}})
			}
			known = true
		case smtBindRe().MatchString(t):
			m := smtBindRe().FindStringSubmatch(t)
			cpu, _ := strconv.Atoi(m[1])
			j, ok := idx[m[2]]
			if !ok {
				j = len(smt.Procs)
				idx[m[2]] = j
				smt.Procs = append(smt.Procs, snapshot.AIXSMTProc{Name: m[2], BindCPUs: []int{}})
			}
			smt.Procs[j].BindCPUs = append(smt.Procs[j].BindCPUs, cpu)
			known = true
		case strings.HasPrefix(t, "SMT threads are bound"), strings.HasPrefix(t, "SMT Threads are bound"):
		default:
			n.add(i+1, "expected a line of smtctl's report, got %q", trunc(t, 40))
		}
	}
	if !known {
		return nil, n, parseErr(0, "no line of smtctl's report (\"This system is SMT capable.\", \"procN has M SMT threads.\")")
	}
	sortProcs(smt.Procs)
	return smt, n, nil
}
