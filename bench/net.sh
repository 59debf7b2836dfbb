#!/usr/bin/env bash
# dbhost bench net's TCP stream against iperf3 on loopback, side by side in
# one script (the quality bar of issue 11: within 10 %). Both run N times,
# alternating which goes first; medians and the ratio are printed.
#
#   bench/net.sh            # 5 runs of 5 s each side
#   N=9 D=10 bench/net.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-5}
D=${D:-5}
command -v iperf3 >/dev/null || { echo "SKIP: iperf3 not installed (apt-get install iperf3)"; exit 0; }
command -v python3 >/dev/null || { echo "SKIP: python3 needed"; exit 0; }
work=$(mktemp -d /tmp/dbhost-netbench.XXXXXX)
trap 'kill $(cat "$work/iperf.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/dbhost" ./cmd/dbhost
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
iperf3 -s -B 127.0.0.1 -p "$port" -D -I "$work/iperf.pid" >/dev/null
sleep 0.5
dbh() { "$work/dbhost" bench net --test tcp_stream -m 128K --duration "${D}s" --format json --state-dir "$work/state" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["throughput_gbps"])'; }
ipf() { iperf3 -c 127.0.0.1 -p "$port" -l 128K -t "$D" -J |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9)'; }
echo "host: $(hostname), $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $N runs of ${D}s each side, 128 KiB sends, 1 stream"
for i in $(seq 1 "$N"); do
	if (( i % 2 )); then a=$(dbh); b=$(ipf); else b=$(ipf); a=$(dbh); fi
	echo "run $i: dbhost $a Gb/s, iperf3 $b Gb/s"
	echo "$a $b" >> "$work/runs"
done
python3 - "$work/runs" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
d = statistics.median(r[0] for r in rows); i = statistics.median(r[1] for r in rows)
ratio = d / i
print(f"median: dbhost bench net {d:.2f} Gb/s, iperf3 {i:.2f} Gb/s, ratio {ratio:.3f}")
print("within 10 %" if abs(ratio - 1) <= 0.10 else "NOT within 10 %", "of iperf3 (load average now:", open("/proc/loadavg").read().split()[0] + ")")
PY
