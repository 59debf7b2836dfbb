#!/usr/bin/env bash
# bench/collect-ab.sh — `dbhost collect --root` of the generated 240-CPU,
# 8-node tree by two revisions of dbhost, side by side: the before/after
# ratio of a change on the collection's hot path (every host file read).
#
#   bench/collect-ab.sh OLD [NEW]     # NEW defaults to the working tree
#   bench/collect-ab.sh -n 60 18f5953 # 60 runs of each (or N=60 ...)
#
# Each revision is built (CGO_ENABLED=0, -trimpath) from `git archive` into a
# temporary directory; the tree is generated once by NEW's genhosts. Both are
# warmed twice, then run N times, alternating which goes first, and the
# medians and minimums of wall and CPU (user + system) time are printed with
# the ratios NEW/OLD. On a shared machine, CPU time and the minimums are the
# numbers to read; see bench/README.md.
set -euo pipefail
export LC_ALL=C

N=${N:-30}
while getopts "n:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	*) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [[ $# -lt 1 || $# -gt 2 ]] || ! [[ $N =~ ^[1-9][0-9]*$ ]]; then
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
old=$1 new=${2:-}

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dbhost-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT

build() { # build REV|"" DEST: a revision (git archive) or the working tree
	local src=$repo
	if [[ -n $1 ]]; then
		src=$work/src-$(basename "$2")
		mkdir -p "$src"
		(cd "$repo" && git archive "$1") | tar -x -C "$src"
	fi
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$2" ./cmd/dbhost)
}
echo "building $old and ${new:-the working tree} ..." >&2
build "$old" "$work/old"
build "$new" "$work/new"
(cd "$repo" && go run ./internal/fixture/cmd/genhosts -big240 "$work/big240") >/dev/null

# shellcheck source=lib.sh
. "$repo/bench/lib.sh"
args=(collect --root "$work/big240" --format json -o /dev/null)
for _ in 1 2; do "$work/old" "${args[@]}"; "$work/new" "${args[@]}"; done
for ((i = 1; i <= N; i++)); do
	if ((i % 2)); then
		time_it old "$work/old" "${args[@]}"
		time_it new "$work/new" "${args[@]}"
	else
		time_it new "$work/new" "${args[@]}"
		time_it old "$work/old" "${args[@]}"
	fi
done
min_ms() { sort -n "$1" | head -1 | awk '{ printf "%.2f", $1 / 1000 }'; }
echo "host: $(uname -n), $(nproc) CPUs, kernel $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg); $N runs each"
for s in old new; do
	printf "%-4s %-12s wall median %8s ms min %8s ms   cpu median %8s ms min %8s ms\n" "$s" "$([[ $s == old ]] && echo "$old" || echo "${new:-worktree}")" \
		"$(median_ms "$work/$s.us")" "$(min_ms "$work/$s.us")" "$(median_ms "$work/$s.cpu")" "$(min_ms "$work/$s.cpu")"
done
awk -v a="$(median_ms "$work/old.us")" -v b="$(median_ms "$work/new.us")" -v c="$(median_ms "$work/old.cpu")" -v d="$(median_ms "$work/new.cpu")" \
	-v e="$(min_ms "$work/old.us")" -v f="$(min_ms "$work/new.us")" -v g="$(min_ms "$work/old.cpu")" -v h="$(min_ms "$work/new.cpu")" \
	'BEGIN { printf "new/old: wall median %.3f, min %.3f; cpu median %.3f, min %.3f\n", b / a, f / e, d / c, h / g }'
