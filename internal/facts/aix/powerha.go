package aix

import (
	"github.com/dbhost/dbhost/internal/lazyre"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

var (
	haStateRe   = lazyre.New(`^\s*Current state:\s*(\S+)`)
	haVersionRe = lazyre.New(`^\s*CLversion:\s*([0-9]+)\s*$`)
	haVRMFRe    = lazyre.New(`^\s*local node vrmf is\s+([0-9]+)\s*$`)
)

// parseClstrmgr reads `lssrc -ls clstrmgrES`, the PowerHA SystemMirror
// (HACMP) cluster manager's long status:
//
//	Current state: ST_STABLE
//	sccsid = "@(#)36 1.135.1.118 src/43haes/usr/sbin/cluster/hacmprd/main.C..."
//	...
//	CLversion: 15
//	local node vrmf is 7142
//	cluster fix level is "2"
//
// or, on a node without PowerHA, the SRC's "0513-085 The clstrmgrES
// Subsystem is not on file." (lssrc exits non-zero), or, when the
// subsystem is defined but not running, "0513-036 The request could not be
// passed to the clstrmgrES subsystem". The long status's other lines
// (timers, DNP values, events) vary by release and are not read.
func parseClstrmgr(s string) (*snapshot.AIXPowerHA, notes, error) {
	h := &snapshot.AIXPowerHA{}
	known := false
	for _, l := range lines(s) {
		switch {
		case strings.Contains(l, "0513-085") || strings.Contains(l, "Subsystem is not on file"):
			return &snapshot.AIXPowerHA{}, nil, nil
		case strings.Contains(l, "0513-036") || strings.Contains(l, "could not be passed to the clstrmgrES"):
			h.Installed, known = true, true
			if h.State == "" {
				h.State = "inoperative"
			}
		case haStateRe().MatchString(l):
			h.Installed, h.State, known = true, haStateRe().FindStringSubmatch(l)[1], true
		case haVersionRe().MatchString(l):
			if v, err := strconv.Atoi(haVersionRe().FindStringSubmatch(l)[1]); err == nil {
				h.CLVersion = &v
			}
		case haVRMFRe().MatchString(l):
			h.VRMF = haVRMFRe().FindStringSubmatch(l)[1]
		}
	}
	if !known {
		return nil, nil, parseErr(0, "no \"Current state:\" line and no SRC message (0513-085: not on file, 0513-036: not running): not lssrc -ls clstrmgrES output")
	}
	h.ClusterNode = h.State != "NOT_CONFIGURED"
	return h, nil, nil
}
