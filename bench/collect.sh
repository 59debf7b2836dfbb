#!/usr/bin/env bash
# bench/collect.sh — how long `dbhost collect` takes on this host, against the
# manual way it replaces (lscpu; numactl --hardware; sysctl -a; and the /proc,
# /sys and /etc reads a DBA does by hand), measured in the same run.
#
#   bench/collect.sh            # 20 runs of each
#   bench/collect.sh -n 50      # 50 runs of each (or N=50 bench/collect.sh)
#
# It builds dbhost once (CGO_ENABLED=0, like the release binary), runs each
# side twice to warm caches (not counted), then N times, alternating the two
# so that background noise hits both alike, and prints both medians and the
# ratio manual/dbhost. See bench/README.md for how to read it.
set -euo pipefail
export LC_ALL=C

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
bench_runs 20 12 "$@"

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dbhost-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The manual way needs numactl (and lscpu, sysctl: util-linux, procps).
if ! command -v numactl >/dev/null 2>&1; then
	echo "numactl is missing: installing it" >&2
	if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
	if command -v apt-get >/dev/null 2>&1; then
		$sudo apt-get install -y numactl >&2
	elif command -v dnf >/dev/null 2>&1; then
		$sudo dnf install -y numactl >&2
	elif command -v yum >/dev/null 2>&1; then
		$sudo yum install -y numactl >&2
	fi
	command -v numactl >/dev/null 2>&1 || { echo "collect.sh: cannot install numactl" >&2; exit 1; }
fi
for c in lscpu sysctl; do
	command -v "$c" >/dev/null 2>&1 || { echo "collect.sh: $c is missing (util-linux / procps)" >&2; exit 1; }
done

echo "building dbhost (CGO_ENABLED=0) ..." >&2
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$work/dbhost" ./cmd/dbhost)
dbhost=$work/dbhost

# The generated 240-CPU, 8-node, 64-disk host of issue 2's second target.
big=""
if (cd "$repo" && go run ./internal/fixture/cmd/genhosts -big240 "$work/big240") >/dev/null 2>&1; then
	big=$work/big240
else
	echo "note: could not generate the 240-CPU tree (internal/fixture/cmd/genhosts -big240); skipping it" >&2
fi

# The manual way: the commands and file reads that the facts in a snapshot
# stand for. Missing files (no cpufreq in a VM, no NIC device) are skipped
# silently, as a shell glob with nothing to match would be.
manual() {
	# With nullglob, a glob matching nothing vanishes; a cat left with no
	# file would read stdin, which is /dev/null (see time_it).
	shopt -s nullglob
	lscpu
	numactl --hardware
	sysctl -a
	uname -r
	cat /proc/sys/kernel/hostname /etc/os-release /proc/cmdline /proc/meminfo /proc/vmstat \
		/proc/sysvipc/shm /proc/interrupts /proc/stat /proc/mounts
	cat /sys/devices/system/cpu/{online,possible}
	cat /sys/devices/system/cpu/cpu*/topology/{physical_package_id,core_id,thread_siblings_list}
	cat /sys/devices/system/node/{online,has_cpu,has_memory}
	cat /sys/devices/system/node/node*/{cpulist,distance,meminfo}
	cat /sys/devices/system/node/node*/hugepages/hugepages-*/{nr_hugepages,free_hugepages,surplus_hugepages}
	cat /sys/kernel/mm/hugepages/hugepages-*/{nr_hugepages,free_hugepages,surplus_hugepages,resv_hugepages,nr_overcommit_hugepages}
	cat /sys/kernel/mm/transparent_hugepage/{enabled,defrag,shmem_enabled} /sys/kernel/mm/transparent_hugepage/khugepaged/defrag
	cat /sys/devices/system/cpu/cpu*/cpufreq/{scaling_driver,scaling_governor,scaling_min_freq,scaling_max_freq}
	cat /sys/devices/system/cpu/cpuidle/current_driver /sys/devices/system/cpu/cpu*/cpuidle/state*/{name,latency,disable}
	cat /sys/block/*/size /sys/block/*/queue/{scheduler,nr_requests,max_sectors_kb,rotational,nomerges,read_ahead_kb,write_cache}
	cat /sys/block/*/device/queue_depth /sys/block/*/device/{vendor,model}
	cat /sys/class/net/*/{mtu,speed,operstate,address} /sys/class/net/*/device/numa_node
	cat /proc/irq/*/smp_affinity_list
	cat /etc/security/limits.conf /etc/security/limits.d/*.conf /etc/sysctl.conf /etc/sysctl.d/*.conf
	cat /sys/fs/cgroup/cpuset/cpuset.{cpus,mems} /sys/fs/cgroup/cpuset.cpus.effective
	ps -eo pid,user,comm,psr,args
}

time_dbhost() { time_it dbhost "$dbhost" collect --format json -o /dev/null; }
time_manual() { time_it manual manual; }
time_big() { time_it big "$dbhost" collect --root "$big" --format json -o /dev/null; }

# Sanity: dbhost must succeed here, or the numbers mean nothing.
"$dbhost" collect --format json -o "$work/snapshot.json"

for _ in 1 2; do # warm-up, not counted
	"$dbhost" collect --format json -o /dev/null
	manual </dev/null >/dev/null 2>&1 || true
done
: >"$work/dbhost.us"
: >"$work/manual.us"
: >"$work/dbhost.cpu"
: >"$work/manual.cpu"
: >"$work/big.us"
: >"$work/big.cpu"
for ((i = 1; i <= N; i++)); do
	if ((i % 2)); then
		time_dbhost
		time_manual
	else
		time_manual
		time_dbhost
	fi
	if [ -n "$big" ]; then time_big; fi
done


d=$(median_ms "$work/dbhost.us")
m=$(median_ms "$work/manual.us")
dc=$(median_ms "$work/dbhost.cpu")
mc=$(median_ms "$work/manual.cpu")
echo "host: $(uname -n), $(nproc) CPUs, kernel $(uname -r), as $(id -un); load average $(cut -d' ' -f1-3 /proc/loadavg); $N runs each"
printf "%-46s wall median %8s ms (range %s)   cpu median %7s ms\n" "dbhost collect --format json -o /dev/null" "$d" "$(range_ms "$work/dbhost.us")" "$dc"
printf "%-46s wall median %8s ms (range %s)   cpu median %7s ms\n" "manual (lscpu; numactl; sysctl -a; cat ...)" "$m" "$(range_ms "$work/manual.us")" "$mc"
awk -v d="$d" -v m="$m" -v dc="$dc" -v mc="$mc" 'BEGIN {
	if (d > 0) printf "ratio manual/dbhost: wall %.1fx", m / d
	if (dc > 0) printf ", cpu %.1fx", mc / dc
	printf "\n" }'
awk -v d="$d" 'BEGIN { printf "issue-2 target (2-core machine, idle): dbhost wall median <= 20 ms: %s\n", (d <= 20 ? "met" : "not met in this run") }'
if [ -n "$big" ]; then
	b=$(median_ms "$work/big.us")
	printf "%-46s wall median %8s ms (range %s)   cpu median %7s ms\n" "dbhost collect --root <240-CPU/8-node/64-disk>" "$b" "$(range_ms "$work/big.us")" "$(median_ms "$work/big.cpu")"
	awk -v b="$b" 'BEGIN { printf "issue-2 target (240-CPU tree, idle machine): wall median <= 100 ms: %s\n", (b <= 100 ? "met" : "not met in this run") }'
fi
