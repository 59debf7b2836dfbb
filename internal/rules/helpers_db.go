package rules

import (
	"fmt"
	"strings"
)

// Helpers for rules that read database artifacts (--artifact). They return
// the value and where it was read ("initORCL.ora:12"), so a finding's
// evidence names the file and line.

// OracleParam is an Oracle initialization parameter for instance sid ("" for
// the "*" default): from the init.ora/pfile/spfile artifacts first (the last
// file given wins), else from the non-default parameters the last startup in
// an alert log printed. ok is false when no artifact sets it.
func (in *Input) OracleParam(sid, name string) (value, where string, ok bool) {
	if in.Artifacts == nil {
		return "", "", false
	}
	name = strings.ToLower(strings.Trim(name, `"`))
	for i := len(in.Artifacts.Params) - 1; i >= 0; i-- {
		p := in.Artifacts.Params[i]
		v, found := p.Get(sid, name)
		if !found {
			continue
		}
		// The instance's own line wins over the "*" default; the last of each is in force.
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
		line := def
		if own > 0 {
			line = own
		}
		return v, fmt.Sprintf("%s:%d", p.File, line), true
	}
	for i := len(in.Artifacts.AlertLogs) - 1; i >= 0; i-- {
		a := in.Artifacts.AlertLogs[i]
		st := a.Last()
		if st == nil || (sid != "" && st.SID != "" && !strings.EqualFold(st.SID, sid)) {
			continue
		}
		if v, found := st.Params[name]; found {
			return v, fmt.Sprintf("%s:%d", a.File, st.ParamLine[name]), true
		}
	}
	return "", "", false
}
