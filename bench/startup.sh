#!/usr/bin/env bash
# bench/startup.sh — how fast dbhost starts and audits this host, against a
# minimal static Go binary and the previous release, side by side in one run.
#
#   bench/startup.sh               # baseline: the newest v* tag before HEAD
#   bench/startup.sh -b 18f5953    # any revision as the baseline
#   bench/startup.sh -n 41         # 41 runs of each (or N=41 ...)
#
# Builds three binaries (CGO_ENABLED=0, -trimpath, as a release is built): the
# working tree's dbhost, the baseline's (from `git archive`), and a minimal
# static Go program that prints one line (the floor of any Go start). Each is
# warmed twice, then all five commands run N times in a rotating order so that
# background load falls on each alike: minimal; new and old `--version`; new
# and old `audit` of this host. Prints the medians and minimums of wall and CPU
# time (user + system), the ratios issue 32 sets (new --version within 3x of
# the minimal program; new/old for both commands), and the package inits that
# cost most (GODEBUG=inittrace=1, the median of N runs per package).
set -euo pipefail
export LC_ALL=C

N=${N:-21}
base=
while getopts "n:b:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	b) base=$OPTARG ;;
	*) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [[ $# -ne 0 ]] || ! [[ $N =~ ^[1-9][0-9]*$ ]]; then
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z $base ]]; then
	base=$(cd "$repo" && git describe --tags --abbrev=0 --match 'v*' HEAD^ 2>/dev/null) || {
		echo "startup.sh: no release tag (v*) before HEAD; name the baseline with -b REV" >&2
		exit 2
	}
fi
(cd "$repo" && git rev-parse --verify -q "$base^{commit}" >/dev/null) || {
	echo "startup.sh: -b $base is not a revision of this repository" >&2
	exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/dbhost-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
. "$repo/bench/lib.sh"

echo "building the working tree, $base and a minimal Go program ..." >&2
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$work/new" ./cmd/dbhost)
mkdir -p "$work/src-old" "$work/min"
(cd "$repo" && git archive "$base") | tar -x -C "$work/src-old"
(cd "$work/src-old" && CGO_ENABLED=0 go build -trimpath -o "$work/old" ./cmd/dbhost)
cat >"$work/min/main.go" <<'EOF'
package main

import "os"

func main() { os.Stdout.WriteString("minimal 0.0.0\n") }
EOF
printf 'module minimal\n\ngo 1.26\n' >"$work/min/go.mod"
(cd "$work/min" && CGO_ENABLED=0 go build -trimpath -o "$work/minimal" .)

names=(minimal new-version old-version new-audit old-audit)
run() { # run NAME: one timed run of that command
	case $1 in
	minimal) time_it "$1" "$work/minimal" ;;
	new-version) time_it "$1" "$work/new" --version ;;
	old-version) time_it "$1" "$work/old" --version ;;
	new-audit) time_it "$1" "$work/new" audit ;;
	old-audit) time_it "$1" "$work/old" audit ;;
	esac
}
for _ in 1 2; do
	"$work/minimal" >/dev/null
	for b in new old; do "$work/$b" --version >/dev/null; "$work/$b" audit >/dev/null 2>&1 || true; done
done
for ((i = 0; i < N; i++)); do
	for ((j = 0; j < ${#names[@]}; j++)); do
		run "${names[(i + j) % ${#names[@]}]}"
	done
done

min_ms() { sort -n "$1" | head -1 | awk '{ printf "%.2f", $1 / 1000 }'; }
echo "host: $(uname -n), $(nproc) CPUs, kernel $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg); $N runs each"
echo "new: the working tree ($(cd "$repo" && git describe --always --dirty 2>/dev/null || echo '?')); old: $base"
for s in "${names[@]}"; do
	printf "%-12s wall median %8s ms min %8s ms   cpu median %8s ms min %8s ms\n" "$s" \
		"$(median_ms "$work/$s.us")" "$(min_ms "$work/$s.us")" "$(median_ms "$work/$s.cpu")" "$(min_ms "$work/$s.cpu")"
done
ratio() { awk -v a="$(median_ms "$work/$1.us")" -v b="$(median_ms "$work/$2.us")" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
v=$(ratio new-version minimal)
echo "new --version / minimal Go start: $v (issue 32 asks <= 3): $(awk -v r="$v" 'BEGIN { print (r <= 3 ? "met" : "not met in this run") }')"
echo "new/old --version: $(ratio new-version old-version); new/old audit: $(ratio new-audit old-audit) (below 1: faster than $base)"

# Which package inits cost the most: per package, the median over N runs of
# its init clock time (GODEBUG=inittrace=1 prints one line per package).
for ((i = 0; i < N; i++)); do
	GODEBUG=inittrace=1 "$work/new" --version 2>&1 >/dev/null | awk '$1 == "init" { print $2, $5 }'
done | sort -k1,1 -k2,2n | awk -v n="$N" '
	{ v[$1] = v[$1] " " $2; c[$1]++ }
	END { for (p in v) { split(substr(v[p], 2), a, " "); printf "%.3f %s\n", a[int((c[p] + 1) / 2)], p } }' |
	sort -rn | head -8 | awk 'BEGIN { print "costliest package inits of new --version (median ms of clock):" } { printf "  %7s ms  %s\n", $1, $2 }'
