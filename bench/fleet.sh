#!/usr/bin/env bash
# bench/fleet.sh — dbhost audit of a fleet of snapshots: peak memory and time
# for SMALL and LARGE hosts (default 200 and 2,000), side by side in one run.
#
#   bench/fleet.sh                  # 200 and 2,000 hosts
#   bench/fleet.sh -s 100 -l 1000
#
# The fleet is made of the committed golden snapshots (testdata/golden/*.json,
# 15 kinds of host from RHEL 6 to a 240-CPU box): four hosts in five are the
# rhel9 database host (the majority), the fifth cycles through all kinds;
# each file gets its own host name. For each size, `dbhost audit --snapshot
# 'DIR/*.json'` runs in text and in JSON (-o /dev/null) under
# `/usr/bin/time -v`: its "Maximum resident set size" and elapsed time; so
# does `dbhost report` of the same fleet (the fleet HTML page, -o a file).
# Printed: both, the ratio LARGE/SMALL of peak memory (issue 13: within 2x,
# memory must not grow with the number of hosts) and of time per host
# (linear: about 1).
set -euo pipefail
export LC_ALL=C
S=200 L=2000
while getopts "s:l:h" opt; do
	case $opt in
	s) S=$OPTARG ;;
	l) L=$OPTARG ;;
	*) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
for n in "$S" "$L"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "fleet.sh: sizes are positive counts, got '$n'" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "fleet.sh: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "fleet.sh: needs python3 to write the fleet" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dbhost-fleet.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "building dbhost (CGO_ENABLED=0) ..." >&2
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$work/dbhost" ./cmd/dbhost)

echo "writing fleets of $S and $L snapshots ..." >&2
python3 - "$repo/testdata/golden" "$work" "$S" "$L" <<'PY'
import glob, json, os, sys
golden, work, sizes = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
paths = sorted(glob.glob(os.path.join(golden, "*.json")))
kinds = [json.load(open(p)) for p in paths]
major = kinds[[i for i, p in enumerate(paths) if p.endswith("/rhel9.json")][0]]
for n in sizes:
    d = os.path.join(work, f"fleet{n}")
    os.makedirs(d)
    for i in range(n):
        s = dict(major if i % 5 else kinds[(i // 5) % len(kinds)])
        s["host"] = dict(s["host"], hostname=f"db{i:05d}")
        with open(os.path.join(d, f"db{i:05d}.json"), "w") as f:
            json.dump(s, f, indent=1)
PY

# run N FORMAT: peak RSS (KiB) and elapsed seconds of one audit of fleetN
# (FORMAT html: the fleet report, written to fleetN.html).
run() {
	local n=$1 format=$2
	if [[ $format == html ]]; then
		rm -f "$work/fleet$n.html"
		/usr/bin/time -v -o "$work/time" "$work/dbhost" report --snapshot "$work/fleet$n/*.json" -o "$work/fleet$n.html" || true
	else
		/usr/bin/time -v -o "$work/time" "$work/dbhost" audit --snapshot "$work/fleet$n/*.json" --format "$format" -o /dev/null || true
	fi
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$work/time")
}

echo "host: $(uname -n), $(nproc) CPUs, kernel $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "fleet: $(du -sh "$work/fleet$S" | cut -f1) for $S hosts, $(du -sh "$work/fleet$L" | cut -f1) for $L"
for format in text json html; do
	run "$S" "$format"; rs=$rss ws=$wall
	run "$L" "$format"; rl=$rss wl=$wall
	what="audit --format $format"
	[[ $format == html ]] && what="report (fleet HTML)"
	awk -v f="$what" -v s="$S" -v l="$L" -v rs="$rs" -v rl="$rl" -v ws="$ws" -v wl="$wl" 'BEGIN {
		printf "%-20s %6d hosts: peak %7.1f MiB  %7.2f s   %6d hosts: peak %7.1f MiB  %7.2f s\n", f, s, rs / 1024, ws, l, rl / 1024, wl }'
	awk -v rs="$rs" -v rl="$rl" -v ws="$ws" -v wl="$wl" -v s="$S" -v l="$L" 'BEGIN {
		m = rl / rs; t = (ws > 0) ? (wl / l) / (ws / s) : 0
		printf "  ratio %d/%d hosts: peak memory %.2fx (issue 13: within 2x: %s), time per host %.2fx (linear = 1)\n",
			l, s, m, (m <= 2 ? "met" : "not met"), t }'
	if [[ $format == html ]]; then
		echo "  fleet HTML: $(du -h "$work/fleet$S.html" | cut -f1) for $S hosts, $(du -h "$work/fleet$L.html" | cut -f1) for $L"
	fi
done
