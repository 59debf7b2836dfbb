package lab

// `dbhost place --apply` for real (docs/lab.md, "Placement in the guests"):
// a stand-in PostgreSQL process is confined to node 1 through a cgroup v2
// cpuset on the guest's real kernel, allocates memory after the move (which
// must land on node 1), and rollback puts everything back.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

func placeScenarios() []*Scenario {
	return []*Scenario{{
		Name:    "place-two-node",
		Doc:     "dbhost place --apply on cgroup v2: a running process confined to node 1 (Cpus/Mems_allowed_list, numa_maps N1=), rollback restores",
		Sockets: 2, Cores: 2, Threads: 1,
		Nodes: []Node{
			{ID: 0, CPUs: []int{0, 1}, MemMB: 256},
			{ID: 1, CPUs: []int{2, 3}, MemMB: 320},
		},
		Guest: placeGuest,
		Check: checkPlaceGuest,
		// The guest runs dbhost about 75 times (apply, again, rollback,
		// 35 kill -9 runs each followed by a rollback, the v1 case) and
		// waits up to 90 s for the process to fill its memory: 36 s on idle
		// cores, 164 s at load 40, killed mid-way by the default 180 s
		// when the load was higher (its /init never reached the guest's
		// section: the "hang" of issue 18).
		TimeoutSec: 600,
	}}
}

// placeGuest: /tmp/postgres is a script (its comm is "postgres", so dbhost
// collect sees a PostgreSQL process with data directory /tmp/pg) that waits
// for /tmp/go, then grows a 24 MB shell string (anonymous memory of its own,
// allocated after the move) and blocks on a FIFO without forking. The spec
// places "pad" (no process: nothing to move; more hugepages, so it is
// placed first) on node 0, so "pg" goes to node 1 with a 16-page hugepage
// pool there. One "place PHASE k=v ..."
// line per phase; the process's numa_maps come back as a file.
const placeGuest = `mkfifo /tmp/never
cat > /tmp/postgres <<'PG_EOF'
#!/bin/sh
while [ ! -e /tmp/go ]; do sleep 1; done
big=$(dd if=/dev/zero bs=1024 count=24576 2>/dev/null | tr '\000' a)
echo ${#big} > /tmp/filled
read x < /tmp/never
PG_EOF
chmod +x /tmp/postgres
/tmp/postgres -D /tmp/pg &
pid=$!
sleep 1
cat > /tmp/spec.yaml <<'SPEC_EOF'
strategy: binding
instances:
  - name: pad
    engine: other
    cpus: 2
    memory_gb: 0.0625
    class: guaranteed
  - name: pg
    engine: postgres
    cpus: 2
    memory_gb: 0.03125
    class: guaranteed
SPEC_EOF
st() {
	echo "place $1 comm=$(cat /proc/$pid/comm) cpus=$(awk '/^Cpus_allowed_list/{print $2}' /proc/$pid/status) mems=$(awk '/^Mems_allowed_list/{print $2}' /proc/$pid/status) cgroup=$(cat /proc/$pid/cgroup) groups=$(ls -d /sys/fs/cgroup/dbhost_* 2>/dev/null | tr '\n' ,) subtree=$(cat /sys/fs/cgroup/cgroup.subtree_control | tr ' ' ,) hp1=$(cat /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages)"
}
st orig
$DBHOST place --spec /tmp/spec.yaml --apply --state-dir /tmp/st > /tmp/pa.out 2>&1; rc=$?
echo "== place --apply rc=$rc"; cat /tmp/pa.out
echo "place applyrc rc=$rc"
st applied
touch /tmp/go
i=0; while [ ! -e /tmp/filled ] && [ $i -lt 90 ]; do sleep 1; i=$((i+1)); done
echo "place filled bytes=$(cat /tmp/filled 2>/dev/null)"
cat /proc/$pid/numa_maps > $LAB_OUT/numa_maps
$DBHOST place --spec /tmp/spec.yaml --apply --state-dir /tmp/st > /tmp/pa2.out 2>&1; rc=$?
echo "== place --apply again rc=$rc"; cat /tmp/pa2.out
echo "place again rc=$rc journals=$(ls /tmp/st/journal/*.jsonl | wc -l)"
$DBHOST rollback --state-dir /tmp/st > /tmp/rb.out 2>&1; rc=$?
echo "== rollback rc=$rc"; cat /tmp/rb.out
echo "place rollbackrc rc=$rc"
st rolledback
$DBHOST rollback --state-dir /tmp/st > /tmp/rb2.out 2>&1; rc=$?
echo "== rollback again rc=$rc"; cat /tmp/rb2.out
echo "place rollback2 rc=$rc already=$(grep -c 'already rolled back' /tmp/rb2.out)"
# kill -9 of place --apply after every journal step N, then rollback: all
# back as before (each N in its own state directory), until apply is not killed.
n=1
while [ $n -le 60 ]; do
	DBHOST_TEST_KILL_AT=$n $DBHOST place --spec /tmp/spec.yaml --apply --state-dir /tmp/k$n > /tmp/k.out 2>&1; arc=$?
	$DBHOST rollback --state-dir /tmp/k$n > /tmp/kr.out 2>&1; rrc=$?
	[ $rrc -ne 0 ] && { echo "== kill $n rollback rc=$rrc"; cat /tmp/kr.out; }
	st k$n | sed "s/^place k$n /place k$n apply=$arc rollback=$rrc /"
	[ $arc -ne 137 ] && break
	n=$((n+1))
done
# cgroup v1: the cpuset controller, released by the rollback, is bound to a
# v1 hierarchy at /sys/fs/cgroup/cpuset (EBUSY for a moment after release:
# retry). "pg" alone goes to node 0 now, with --memory-migrate: the 24 MB it
# holds on node 1 must follow it to node 0 when it is moved.
umount /sys/fs/cgroup && mount -t tmpfs tmpfs /sys/fs/cgroup && mkdir /sys/fs/cgroup/cpuset
i=0; until mount -t cgroup -o cpuset cgroup /sys/fs/cgroup/cpuset 2>/dev/null; do i=$((i+1)); [ $i -ge 20 ] && break; sleep 1; done
echo "place v1mount tries=$i mounted=$(grep -c ' /sys/fs/cgroup/cpuset cgroup ' /proc/mounts)"
cat > /tmp/spec1.yaml <<'SPEC_EOF'
strategy: binding
instances:
  - name: pg
    engine: postgres
    cpus: 2
    memory_gb: 0.03125
    class: guaranteed
SPEC_EOF
st1() {
	echo "place $1 cpus=$(awk '/^Cpus_allowed_list/{print $2}' /proc/$pid/status) mems=$(awk '/^Mems_allowed_list/{print $2}' /proc/$pid/status) cgroup=$(grep cpuset /proc/$pid/cgroup) groups=$(ls -d /sys/fs/cgroup/cpuset/dbhost_* 2>/dev/null | tr '\n' ,) hp0=$(cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages)"
}
st1 v1orig
$DBHOST place --spec /tmp/spec1.yaml --apply --memory-migrate --state-dir /tmp/st1 > /tmp/pv1.out 2>&1; rc=$?
echo "== v1 place --apply --memory-migrate rc=$rc"; cat /tmp/pv1.out
echo "place v1applyrc rc=$rc"
st1 v1applied
cat /proc/$pid/numa_maps > $LAB_OUT/numa_maps_v1
$DBHOST rollback --state-dir /tmp/st1 > /tmp/rbv1.out 2>&1; rc=$?
echo "== v1 rollback rc=$rc"; cat /tmp/rbv1.out
echo "place v1rollbackrc rc=$rc"
st1 v1rolledback
`

// parsePlaceGuest reads placeGuest's "place PHASE k=v ..." lines into
// phase → key → value; other lines are ignored.
func parsePlaceGuest(out string) (map[string]map[string]string, error) {
	m := map[string]map[string]string{}
	for i, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "place" {
			continue
		}
		if _, dup := m[f[1]]; dup {
			return nil, fmt.Errorf("line %d: phase %q twice", i+1, f[1])
		}
		kv := map[string]string{}
		for _, x := range f[2:] {
			k, v, ok := strings.Cut(x, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("line %d: %q: expected key=value", i+1, trunc(x, 40))
			}
			kv[k] = v
		}
		m[f[1]] = kv
	}
	return m, nil
}

var numaMapsNode = regexp.MustCompile(`\bN(\d+)=(\d+)`)

// numaPages sums the N<node>=<pages> fields of a numa_maps text per node.
func numaPages(text string) map[int]int64 {
	out := map[int]int64{}
	for _, m := range numaMapsNode.FindAllStringSubmatch(text, -1) {
		n, err1 := strconv.Atoi(m[1])
		p, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 == nil && err2 == nil {
			out[n] += p
		}
	}
	return out
}

func checkPlaceGuest(r *Result) error {
	got, err := parsePlaceGuest(r.Guest)
	if err != nil {
		return err
	}
	var bad []string
	want := func(phase, key, value string) {
		if v, ok := got[phase][key]; !ok || v != value {
			bad = append(bad, fmt.Sprintf("%s %s: expected %q, got %q", phase, key, value, v))
		}
	}
	orig := got["orig"]
	want("orig", "comm", "postgres")
	want("orig", "cpus", "0-3")
	want("orig", "mems", "0-1")
	want("orig", "groups", "")
	want("applyrc", "rc", "0")
	want("applied", "cpus", "2-3")
	want("applied", "mems", "1")
	want("applied", "cgroup", "0::/dbhost_pg")
	want("applied", "groups", "/sys/fs/cgroup/dbhost_pad,/sys/fs/cgroup/dbhost_pg,")
	want("applied", "hp1", "16")
	if s := got["applied"]["subtree"]; !strings.Contains(","+s+",", ",cpuset,") {
		bad = append(bad, fmt.Sprintf("applied: cpuset not in the root's subtree_control %q", s))
	}
	want("filled", "bytes", "25165824")
	pages := numaPages(string(r.Files["numa_maps"]))
	if pages[1] < 4096 || pages[1] <= pages[0] {
		bad = append(bad, fmt.Sprintf("numa_maps: expected the 24 MB allocated after the move on node 1 (N1 ≥ 4096 pages, more than N0), got %v", pages))
	}
	want("again", "rc", "0")
	want("again", "journals", "1")
	want("rollbackrc", "rc", "0")
	for _, k := range []string{"cpus", "mems", "cgroup", "groups", "subtree", "hp1"} {
		if orig != nil {
			want("rolledback", k, orig[k])
		}
	}
	want("rollback2", "rc", "0")
	want("rollback2", "already", "1")
	// kill -9 at every step: the last run was not killed, every rollback
	// restored the original state.
	killed := 0
	for n := 1; ; n++ {
		k, ok := got["k"+strconv.Itoa(n)]
		if !ok {
			if n == 1 {
				bad = append(bad, "kill loop: no result")
			} else if got["k"+strconv.Itoa(n-1)]["apply"] == "137" {
				bad = append(bad, fmt.Sprintf("kill loop: still killed at step %d (the loop's bound)", n-1))
			}
			break
		}
		if k["apply"] == "137" {
			killed++
		} else if k["apply"] != "0" {
			bad = append(bad, fmt.Sprintf("k%d: apply exit %s, expected 137 (killed) or 0 (past its last step)", n, k["apply"]))
		}
		phase := "k" + strconv.Itoa(n)
		want(phase, "rollback", "0")
		for _, key := range []string{"cpus", "mems", "cgroup", "groups", "subtree", "hp1"} {
			if orig != nil {
				want(phase, key, orig[key])
			}
		}
	}
	if killed < 20 {
		bad = append(bad, fmt.Sprintf("kill loop: only %d steps killed, expected at least 20 (2 + 2 per change)", killed))
	}
	// cgroup v1 with memory_migrate.
	want("v1mount", "mounted", "1")
	v1 := got["v1orig"]
	want("v1orig", "cpus", "0-3")
	want("v1orig", "mems", "0-1")
	want("v1orig", "cgroup", "1:cpuset:/")
	want("v1applyrc", "rc", "0")
	want("v1applied", "cpus", "0-1")
	want("v1applied", "mems", "0")
	want("v1applied", "cgroup", "1:cpuset:/dbhost_pg")
	want("v1applied", "groups", "/sys/fs/cgroup/cpuset/dbhost_pg,")
	want("v1applied", "hp0", "16")
	pages = numaPages(string(r.Files["numa_maps_v1"]))
	if pages[0] < 4096 || pages[1] >= pages[0] {
		bad = append(bad, fmt.Sprintf("numa_maps after the v1 move with memory_migrate: expected the 24 MB migrated to node 0 (N0 ≥ 4096 pages, more than N1), got %v", pages))
	}
	want("v1rollbackrc", "rc", "0")
	for _, k := range []string{"cpus", "mems", "cgroup", "groups", "hp0"} {
		if v1 != nil {
			want("v1rolledback", k, v1[k])
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s\nguest output:\n%s", strings.Join(bad, "; "), r.Guest)
	}
	return nil
}
