#!/usr/bin/env bash
# bench/exporter.sh — how long a Prometheus scrape of `dbhost exporter` takes
# when served from its cache, against a scrape that audits (the anchor),
# side by side in one run, alternating the two.
#
#   bench/exporter.sh          # 20 scrapes of each
#   bench/exporter.sh -n 50
#
# Two exporters read the generated 240-CPU, 8-node, 64-disk tree (--root):
# one with --cache-interval 1h (every scrape after its first audit is served
# from the cache), one with --cache-interval 0 (every scrape runs the audit).
# Each scrape is `curl -s http://ADDR/metrics` (HTTP, the metrics rendered
# and sent), timed by curl itself (time_total: connect to last byte, curl's
# own start left out); a third series, the exporter's small landing page /,
# is the floor (one HTTP round trip on this machine, now).
# Prints the medians, the ratios audit/cached and cached/floor, and whether
# the cached scrape stays within issue 13's 50 ms.
set -euo pipefail
export LC_ALL=C
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
bench_runs 20 16 "$@"
command -v curl >/dev/null || { echo "exporter.sh: needs curl" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dbhost-exporter.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

echo "building dbhost (CGO_ENABLED=0) and the 240-CPU tree ..." >&2
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$work/dbhost" ./cmd/dbhost)
(cd "$repo" && go run ./internal/fixture/cmd/genhosts -big240 "$work/big240") >/dev/null

# start NAME INTERVAL: an exporter on a port the kernel chooses; sets $addr.
start() {
	"$work/dbhost" exporter --root "$work/big240" --listen 127.0.0.1:0 --cache-interval "$2" 2>"$work/$1.log" &
	pids+=($!)
	for _ in $(seq 1 600); do
		addr=$(sed -n 's/.*listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/$1.log")
		[[ -n $addr ]] && return 0
		sleep 0.1
	done
	echo "exporter.sh: exporter $1 did not start:" >&2
	cat "$work/$1.log" >&2
	exit 1
}
start cached 1h
cached=$addr
start audit 0
audit=$addr

# scrape NAME URL: appends curl's time_total in microseconds to NAME.us.
scrape() {
	curl -sf -o /dev/null -w '%{time_total}\n' "$2" | awk '{ printf "%d\n", $1 * 1000000 }' >>"$work/$1.us"
}
for _ in 1 2; do curl -sf "http://$cached/metrics" >/dev/null; curl -sf "http://$audit/metrics" >/dev/null; done
: >"$work/cached.us"; : >"$work/audit.us"; : >"$work/floor.us"
for ((i = 1; i <= N; i++)); do
	if ((i % 2)); then
		scrape cached "http://$cached/metrics"
		scrape floor "http://$cached/"
		scrape audit "http://$audit/metrics"
	else
		scrape audit "http://$audit/metrics"
		scrape floor "http://$cached/"
		scrape cached "http://$cached/metrics"
	fi
done
c=$(median_ms "$work/cached.us")
a=$(median_ms "$work/audit.us")
series=$(curl -sf "http://$cached/metrics" | grep -c '^dbhost_')
echo "host: $(uname -n), $(nproc) CPUs, kernel $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg); $N scrapes each"
printf '%-44s wall median %8s ms (range %s)   (%s dbhost_ series)\n' "scrape served from the cache (1h)" "$c" "$(range_ms "$work/cached.us")" "$series"
printf '%-44s wall median %8s ms (range %s)\n' "scrape that audits (--cache-interval 0)" "$a" "$(range_ms "$work/audit.us")"
f=$(median_ms "$work/floor.us")
printf '%-44s wall median %8s ms (range %s)\n' "floor: curl of the landing page /" "$f" "$(range_ms "$work/floor.us")"
awk -v c="$c" -v a="$a" -v f="$f" 'BEGIN { if (c > 0 && f > 0) printf "ratio audit/cached: %.1fx; cached/floor: %.2fx; cached scrape <= 50 ms (issue 13): %s\n", a / c, c / f, (c <= 50 ? "met" : "not met in this run") }'
