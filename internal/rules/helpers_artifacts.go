package rules

import (
	"fmt"
	"github.com/dbhost/dbhost/internal/lazyre"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers of the database-artifact rules (db.oracle-*, memory.* from alert
// logs and init files, middle.*, db.postgres-*). Unexported names start with
// "art" or "ora" so they do not collide with other rule files' helpers.

// AreaMiddle is the area of middle-tier findings (connection pools).
const AreaMiddle = "middle"

// oraInstance is one Oracle instance known from the artifacts: from an
// init.ora/pfile/spfile (one instance per SID with its own settings, or the
// file's single instance) and/or the last startup of an alert log.
type oraInstance struct {
	SID    string
	DB     string                // db_name when known
	RAC    bool                  // cluster_database = true
	Params *artifacts.InitParams // nil when only an alert log names it
	Alert  *artifacts.AlertLog   // nil when no alert log names it
	Start  *artifacts.Startup    // Alert's last startup
}

var (
	reInitFileSID  = lazyre.New(`(?i)^(?:init|spfile)([A-Za-z0-9_$#+-]+?)(?:\.ora|\.strings|\.txt)*$`)
	reAlertFileSID = lazyre.New(`(?i)^alert_([A-Za-z0-9_$#+-]+?)(?:\.log|\.txt)*$`)
)

// oraInstances lists the Oracle database instances the artifacts describe,
// by SID (case-insensitive): an init file's instance and an alert log of the
// same SID are one instance. ASM instances (+ASM1) are left out. Sorted by SID.
func (in *Input) oraInstances() []*oraInstance {
	if in.Artifacts == nil {
		return nil
	}
	by := map[string]*oraInstance{}
	var order []string
	add := func(sid string) *oraInstance {
		k := strings.ToUpper(sid)
		if i, ok := by[k]; ok {
			return i
		}
		i := &oraInstance{SID: sid}
		by[k] = i
		order = append(order, k)
		return i
	}
	for _, p := range in.Artifacts.Params {
		db, _ := p.Get("", "db_name")
		rac, _ := p.Bool("", "cluster_database")
		sids := p.SIDs()
		if len(sids) == 0 {
			sid, _ := p.Get("", "instance_name")
			if sid == "" {
				if m := reInitFileSID().FindStringSubmatch(filepath.Base(p.File)); m != nil {
					sid = m[1]
				}
			}
			if sid == "" {
				sid = db
			}
			if sid == "" {
				sid = filepath.Base(p.File)
			}
			sids = []string{sid}
		}
		for _, sid := range sids {
			i := add(sid)
			i.Params, i.DB = p, db
			if r, ok := p.Bool(sid, "cluster_database"); ok {
				i.RAC = r
			} else {
				i.RAC = rac
			}
		}
	}
	for _, a := range in.Artifacts.AlertLogs {
		st := a.Last()
		if st == nil {
			continue
		}
		sid := st.SID
		if sid == "" {
			if m := reAlertFileSID().FindStringSubmatch(filepath.Base(a.File)); m != nil {
				sid = m[1]
			}
		}
		if sid == "" {
			sid = filepath.Base(a.File)
		}
		i := add(sid)
		i.Alert, i.Start = a, st
		if i.DB == "" && st.Params != nil {
			i.DB = st.Params["db_name"]
		}
	}
	sort.Strings(order)
	out := make([]*oraInstance, 0, len(order))
	for _, k := range order {
		if strings.HasPrefix(k, "+") {
			continue // ASM / APX instances hold no database
		}
		out = append(out, by[k])
	}
	return out
}

// Param is the instance's parameter with where it was read ("initORCL.ora:12"):
// its init file first (own SID line, else the "*" line), else its alert log's
// last startup. ok is false when neither sets it.
func (i *oraInstance) Param(name string) (value, where string, ok bool) {
	name = strings.ToLower(strings.Trim(name, `"`))
	if i.Params != nil {
		if v, found := i.Params.Get(i.SID, name); found {
			return v, fmt.Sprintf("%s:%d", i.Params.File, oraParamLine(i.Params, i.SID, name)), true
		}
	}
	if i.Start != nil && i.Start.Params != nil {
		if v, found := i.Start.Params[name]; found {
			return v, fmt.Sprintf("%s:%d", i.Alert.File, i.Start.ParamLine[name]), true
		}
	}
	return "", "", false
}

// Complete says whether an unset parameter means "the default": true when
// the instance has an init file, or an alert log whose last startup printed
// its non-default parameters.
func (i *oraInstance) Complete() bool {
	return i.Params != nil || (i.Start != nil && len(i.Start.Params) > 0)
}

// Source names the artifacts the instance was read from.
func (i *oraInstance) Source() string {
	var s []string
	if i.Params != nil {
		f := i.Params.File
		if i.Params.Spfile && len(i.Params.Skipped) > 0 {
			f += fmt.Sprintf(" (a spfile dump: %d binary line(s) skipped)", len(i.Params.Skipped))
		}
		s = append(s, f)
	}
	if i.Alert != nil {
		s = append(s, i.Alert.File)
	}
	return strings.Join(s, ", ")
}

// Bytes is a size parameter in bytes; ok false when unset or not a size.
func (i *oraInstance) Bytes(name string) (n int64, where string, ok bool) {
	v, where, set := i.Param(name)
	if !set {
		return 0, "", false
	}
	n, err := artifacts.ParseBytes(v)
	if err != nil {
		return 0, where, false
	}
	return n, where, true
}

// oraParamLine is the line of the entry in force for sid (own line, else "*").
func oraParamLine(p *artifacts.InitParams, sid, name string) int {
	own, def := 0, 0
	for _, e := range p.Entries {
		switch {
		case e.Name != name:
		case sid != "" && sid != "*" && strings.EqualFold(e.SID, sid):
			own = e.Line
		case e.SID == "*":
			def = e.Line
		}
	}
	if own > 0 {
		return own
	}
	return def
}

// oraBool reads an Oracle boolean (TRUE/FALSE, YES/NO, ON/OFF).
func oraBool(v string) (b, ok bool) {
	switch strings.ToUpper(strings.Trim(strings.TrimSpace(v), `'"`)) {
	case "TRUE", "YES", "ON":
		return true, true
	case "FALSE", "NO", "OFF":
		return false, true
	}
	return false, false
}

// oraUnquote strips quotes and blanks from a parameter value.
func oraUnquote(v string) string { return strings.Trim(strings.TrimSpace(v), `'"`) }

// artLocalSIDs are the Oracle instance names of this host's processes (upper-cased).
func artLocalSIDs(s *snapshot.Snapshot) map[string]bool {
	m := map[string]bool{}
	for _, p := range s.Processes {
		if engineDB(p.Engine) == DBOracle && p.Instance != "" {
			m[strings.ToUpper(p.Instance)] = true
		}
	}
	return m
}

// artThreads is the number of online CPU threads, or the reason it is unknown.
func artThreads(in *Input) (int, string) {
	s := in.Snap
	if n := len(s.Topology.CPUsOnline); n > 0 {
		return n, ""
	}
	n := 0
	for _, c := range s.Topology.CPUs {
		if c.Online {
			n++
		}
	}
	if n > 0 {
		return n, ""
	}
	return 0, in.Reason("topology.cpus", "no online CPUs in the snapshot")
}

// artHugePool is the default-size hugepage pool, or why it is unknown.
func artHugePool(in *Input) (snapshot.Hugepages, string) {
	if h, ok := DefaultHugepages(in.Snap); ok {
		return h, ""
	}
	if len(in.Snap.Memory.Hugepages) > 0 {
		return in.Snap.Memory.Hugepages[0], ""
	}
	return snapshot.Hugepages{}, in.Reason("memory.hugepages", "no hugepage pool in the snapshot")
}

// artPlural is "1 thing" / "2 things".
func artPlural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// artMerge merges findings that read the same lines (same Setting and
// Evidence): the instances of one RAC spfile, or several SIDs of one pfile,
// give one finding naming them all. sids[k] is the instance of fs[k], named
// in its Current as "instance SID".
func artMerge(fs []Finding, sids []string) []Finding {
	var out []Finding
	var outSIDs [][]string
	for k, f := range fs {
		merged := false
		for j := range out {
			if out[j].Setting == f.Setting && out[j].Evidence == f.Evidence && k < len(sids) {
				outSIDs[j] = append(outSIDs[j], sids[k])
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, f)
			var s []string
			if k < len(sids) {
				s = []string{sids[k]}
			}
			outSIDs = append(outSIDs, s)
		}
	}
	for j := range out {
		if len(outSIDs[j]) > 1 {
			out[j].Current = strings.Replace(out[j].Current, "instance "+outSIDs[j][0], "instances "+strings.Join(outSIDs[j], ", "), 1)
		}
	}
	return out
}

// oraHuge is the hugepages an Oracle instance needs and holds, from its last
// startup: pages of sizeKB, the pages Oracle expected (EXPECTED_PAGES of the
// SGA dump's large-page row, each SGA segment rounded up to whole pages), the
// pages it got (ALLOCATED_PAGES; -1 when not printed), and where that was read.
type oraHuge struct {
	sizeKB, pages, allocated int64
	ev                       string
}

// kb is the memory the instance locks: the memlock it needs, to the kB.
func (h oraHuge) kb() int64 { return h.pages * h.sizeKB }

// hugeNeed reads the instance's need from its SGA dump (12c+): the largest
// page size with EXPECTED_PAGES; else the memlock the dump says it expected,
// in whole pages of defaultKB; else the 11.2 "Large Pages Information" block
// (pages in use plus those it asked for). ok is false when none says.
func (i *oraInstance) hugeNeed(defaultKB int64) (oraHuge, bool) {
	st := i.Start
	if st == nil {
		return oraHuge{}, false
	}
	where := func(line int) string { return fmt.Sprintf("%s:%d", i.Alert.File, line) }
	if d := st.SGA; d != nil {
		var best *artifacts.SGAPageSize
		for k, r := range d.PageSizes {
			if r.PageSizeKB > 4 && r.Expected != nil && (best == nil || r.PageSizeKB > best.PageSizeKB) {
				best = &d.PageSizes[k]
			}
		}
		if best != nil {
			h := oraHuge{sizeKB: best.PageSizeKB, pages: *best.Expected, allocated: -1}
			alloc := "?"
			if best.Allocated != nil {
				h.allocated, alloc = *best.Allocated, fmt.Sprint(*best.Allocated)
			}
			h.ev = fmt.Sprintf("%s: %s SGA dump, %dK pages expected %d, allocated %s", where(d.Line), i.SID, best.PageSizeKB, h.pages, alloc)
			return h, true
		}
		if d.ExpectedMemlockBytes != nil && defaultKB > 0 {
			h := oraHuge{sizeKB: defaultKB, pages: ceilDiv(*d.ExpectedMemlockBytes/1024, defaultKB), allocated: -1}
			h.ev = fmt.Sprintf("%s: %s expected to lock %s: %d pages of %s", where(d.Line), i.SID, d.ExpectedMemlock, h.pages, KB(defaultKB))
			return h, true
		}
	}
	if lp := st.LargePages; lp != nil && lp.InUse != nil {
		size := defaultKB
		if lp.PageSizeKB != nil && *lp.PageSizeKB > 4 {
			size = *lp.PageSizeKB
		}
		if size > 0 {
			h := oraHuge{sizeKB: size, pages: *lp.InUse, allocated: *lp.InUse}
			if lp.Required != nil {
				h.pages += *lp.Required
			}
			h.ev = fmt.Sprintf("%s: %s Large Pages Information, %d pages in use", where(lp.Line), i.SID, *lp.InUse)
			if lp.Required != nil {
				h.ev += fmt.Sprintf(", %d more required", *lp.Required)
			}
			return h, true
		}
	}
	return oraHuge{}, false
}
