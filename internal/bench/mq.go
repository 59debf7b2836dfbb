package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// MQOptions: seed 000's message-passing test: one receiver (the "master")
// on one request queue, Senders workers each waiting for its reply on its
// own queue.
type MQOptions struct {
	Options
	Senders int   // 0: 2 per CPU, 2..32
	Size    int   // message payload bytes; 0: 128
	CPUNode int   // the node the bound case runs on (-1: 0, the default)
	MemNode int   // the node its memory is bound to (-1: the CPU node)
	CPUs    []int // bind to these CPUs instead of a node's
}

func (o MQOptions) senders(cpus int) int {
	if o.Senders > 0 {
		return o.Senders
	}
	return min(max(2*cpus, 2), 32)
}

// mqKeyPrefix is the high byte of every SysV key dbhost's queues use, so
// that a recorded key cannot name another program's queue by chance.
const mqKeyPrefix = 0xdb

// SysVMsg is one line of /proc/sysvipc/msg.
type SysVMsg struct {
	Key          int64
	MsqID        int
	CUID         int
	LSPID, LRPID int // last sender, last receiver (0: none yet)
}

// ParseSysVMsg reads /proc/sysvipc/msg: a header naming the columns, then
// one queue per line (key msqid perms cbytes qnum lspid lrpid uid gid cuid
// cgid stime rtime ctime ...). Columns are found by name.
func ParseSysVMsg(s string) ([]SysVMsg, error) {
	lines := splitLines(s)
	if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
		return nil, nil
	}
	head := strings.Fields(lines[0])
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, need := range []string{"key", "msqid", "cuid", "lspid", "lrpid"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("/proc/sysvipc/msg line 1: no %q column (got %q)", need, strings.Join(head, " "))
		}
	}
	var out []SysVMsg
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) < len(head) {
			return nil, fmt.Errorf("/proc/sysvipc/msg line %d: %d fields, expected %d", i+2, len(f), len(head))
		}
		key, err1 := strconv.ParseInt(f[col["key"]], 10, 64)
		id, err2 := strconv.Atoi(f[col["msqid"]])
		cuid, err3 := strconv.Atoi(f[col["cuid"]])
		ls, err4 := strconv.Atoi(f[col["lspid"]])
		lr, err5 := strconv.Atoi(f[col["lrpid"]])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil {
			return nil, fmt.Errorf("/proc/sysvipc/msg line %d: expected numbers in key, msqid, cuid, lspid and lrpid", i+2)
		}
		out = append(out, SysVMsg{Key: key, MsqID: id, CUID: cuid, LSPID: ls, LRPID: lr})
	}
	return out, nil
}
