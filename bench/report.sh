#!/usr/bin/env bash
# bench/report.sh — how long `dbhost report` of the 240-CPU, 8-node, 64-disk,
# 4-NIC host takes and how large it is, against `dbhost audit --format json`
# of the same snapshot (the same facts and rules, rendered as JSON), measured
# side by side in the same run, alternating the two.
#
#   bench/report.sh            # 20 runs of each
#   bench/report.sh -n 50      # or N=50 bench/report.sh
#
# Both read one saved snapshot of the generated tree (go run
# ./internal/fixture/cmd/genhosts -big240), so the difference is the
# rendering: the report adds the NUMA picture, the HTML and its checksum.
# Prints both medians, the ratio report/audit-json for time and size, and
# whether the issue's bounds hold in this run (under 2 s, under 2 MB).
set -euo pipefail
export LC_ALL=C
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
bench_runs 20 14 "$@"
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dbhost-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "building dbhost (CGO_ENABLED=0) and the 240-CPU tree ..." >&2
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$work/dbhost" ./cmd/dbhost)
(cd "$repo" && go run ./internal/fixture/cmd/genhosts -big240 "$work/big240" >/dev/null)
"$work/dbhost" collect --root "$work/big240" --format json -o "$work/big.json"

report() { "$work/dbhost" report --snapshot "$work/big.json" -o "$work/report.html"; }
audit() { "$work/dbhost" audit --snapshot "$work/big.json" --format json -o "$work/audit.json"; }
for _ in 1 2; do report; audit; done
: >"$work/report.us"; : >"$work/report.cpu"; : >"$work/audit.us"; : >"$work/audit.cpu"
for ((i = 1; i <= N; i++)); do
	if ((i % 2)); then
		time_it report report
		time_it audit audit
	else
		time_it audit audit
		time_it report report
	fi
done
r=$(median_ms "$work/report.us")
a=$(median_ms "$work/audit.us")
rs=$(wc -c <"$work/report.html")
as=$(wc -c <"$work/audit.json")
echo "host: $(uname -n), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg); $N runs each; snapshot $(wc -c <"$work/big.json") bytes"
printf '%-40s wall median %8s ms (range %s)   cpu median %7s ms   %9s bytes\n' "dbhost report (240 CPUs, 8 nodes)" "$r" \
	"$(range_ms "$work/report.us")" "$(median_ms "$work/report.cpu")" "$rs"
printf '%-40s wall median %8s ms (range %s)   cpu median %7s ms   %9s bytes\n' "dbhost audit --format json (same)" "$a" \
	"$(range_ms "$work/audit.us")" "$(median_ms "$work/audit.cpu")" "$as"
rc=$(median_ms "$work/report.cpu")
ac=$(median_ms "$work/audit.cpu")
awk -v r="$r" -v a="$a" -v rc="$rc" -v ac="$ac" -v rs="$rs" -v as="$as" 'BEGIN {
	if (a > 0 && ac > 0) printf "ratio report/audit-json: wall %.2fx, cpu %.2fx, size %.2fx\n", r / a, rc / ac, rs / as
	printf "issue 13 bounds: under 2 s: %s; under 2 MB: %s\n", (r < 2000 ? "met" : "not met in this run"), (rs < 2 * 1024 * 1024 ? "met" : "NOT MET")
}'
