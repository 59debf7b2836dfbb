#!/usr/bin/env bash
# Seed 001 (bdt): under CPU pressure (more runnable work than CPUs allowed),
# instance caging (a CPU quota: Oracle's cpu_count + resource manager, here a
# cgroup v1 cpu.cfs_quota_us of CAGE CPUs) against binding (a cpuset of the
# same CAGE CPUs). The seed, on one NUMA node: 9 SLOB readers, binding to 6
# CPUs 5.8 M logical reads/s, caging at 6 inside a 9-CPU binding 5.1 M (its
# Tests 3 and 4, "by about 10%": binding ~1.14x caging; its 3.5 M for caging
# alone had the SGA on every node and is not comparable). Here stress-ng's matrix workers stand in
# for SLOB readers: WORKERS = 1.5 x CAGE, throughput in bogo ops/s of real
# time, RUNS alternating rounds.
#
#   experiments/caging-vs-binding.sh                # CAGE=1 on a 2-CPU host, 3 rounds of 10 s
#   CAGE=6 WORKERS=9 RUNS=5 DUR=30 experiments/caging-vs-binding.sh
source "$(dirname "$0")/lib.sh"
command -v stress-ng >/dev/null || { echo "SKIP: stress-ng not installed"; exit 0; }
cpu=/sys/fs/cgroup/cpu cs=/sys/fs/cgroup/cpuset
[[ -w $cpu/cpu.cfs_quota_us && -w $cs/cpuset.cpus ]] || { echo "SKIP: needs the cgroup v1 cpu and cpuset hierarchies at $cpu and $cs"; exit 0; }
ncpu=$(nproc)
CAGE=${CAGE:-$(( ncpu / 2 > 0 ? ncpu / 2 : 1 ))}
WORKERS=${WORKERS:-$(( (CAGE * 3 + 1) / 2 ))}
RUNS=${RUNS:-3}
DUR=${DUR:-10}
(( WORKERS > CAGE )) || WORKERS=$((CAGE + 1))
hostline
echo "cage: $CAGE of $ncpu CPUs, $WORKERS workers (pressure), $RUNS rounds of ${DUR}s"
name=dbhost-exp-$$
rmcg() { local d; for d in "$cpu/$name" "$cs/$name"; do [[ -d $d ]] && rmdir "$d" 2>/dev/null; done; true; }
cleanups+=("rmcg")
mkdir "$cpu/$name" "$cs/$name"
period=100000
echo $period > "$cpu/$name/cpu.cfs_period_us"
echo $((CAGE * period)) > "$cpu/$name/cpu.cfs_quota_us"
last=$(( CAGE - 1 ))
echo "0-$last" > "$cs/$name/cpuset.cpus"
cat $cs/cpuset.mems > "$cs/$name/cpuset.mems"
# run GROUPDIR: stress-ng in the group, prints bogo ops/s (real time).
run() {
	sh -c "echo \$\$ > $1/cgroup.procs; exec stress-ng --cpu $WORKERS --cpu-method matrixprod -t ${DUR}s --metrics-brief" 2>&1 |
		awk '/cpu / && $0 ~ /[0-9]/ { v=$(NF-1) } END { print v }'
}
: > "$work/rows"
for i in $(seq 1 "$RUNS"); do
	if (( i % 2 )); then c=$(run "$cpu/$name"); b=$(run "$cs/$name"); else b=$(run "$cs/$name"); c=$(run "$cpu/$name"); fi
	echo "round $i: caging (quota $CAGE CPUs) $c bogo ops/s, binding (cpuset 0-$last) $b bogo ops/s"
	echo "$c $b" >> "$work/rows"
done
python3 - "$work/rows" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
c = statistics.median(r[0] for r in rows); b = statistics.median(r[1] for r in rows)
print(f"median: caging {c:.1f}, binding {b:.1f} bogo ops/s; binding / caging = {b/c:.2f}x (seed 001 Tests 3 and 4: 5.8/5.1 = 1.14x, caging about 10 % less)")
PY
