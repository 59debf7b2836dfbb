#!/usr/bin/env bash
# Seed 000 (netperf -s/-S): a client that fixes its socket buffers at
# 128 KiB against the kernel's autotuning, over an emulated link with delay
# (the window caps the throughput at buffer / RTT). Both sides run as
# `dbhost bench net --test tcp_stream` across the same link, and
# `dbhost compare` gives the drop with its 95 % confidence interval.
#
#   experiments/socket-buffers.sh                 # 2 ms each way, 3 repeats of 5 s
#   DELAY=5ms REPEAT=5 DUR=10s experiments/socket-buffers.sh
source "$(dirname "$0")/lib.sh"
DELAY=${DELAY:-2ms}
REPEAT=${REPEAT:-3}
DUR=${DUR:-5s}
hostline
common=(bench net --test tcp_stream --delay "$DELAY" --duration "$DUR" --repeat "$REPEAT" --format json --state-dir "$work/state")
say "autotuning: dbhost ${common[*]}"
dbhost "${common[@]}" -o "$work/auto.json"
say "128 KiB: dbhost ${common[*]} -s 128K -S 128K"
dbhost "${common[@]}" -s 128K -S 128K -o "$work/fixed.json"
dbhost compare "$work/auto.json" "$work/fixed.json" || true
python3 - "$work/auto.json" "$work/fixed.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra, rb = a["results"][0], b["results"][0]
print(f"link: {a['params'].get('link')}, {a['params'].get('link_delay')} each way; TCP_INFO RTT {ra['extra'].get('rtt_ms', 0):.2f} ms")
print(f"autotuning: {ra['throughput_gbps']*1000:.0f} Mb/s (median of {a['params']['repeat']})")
print(f"128 KiB:    {rb['throughput_gbps']*1000:.0f} Mb/s (median of {b['params']['repeat']})")
drop = 1 - rb["throughput_gbps"] / ra["throughput_gbps"]
print(f"drop with 128 KiB buffers: {100*drop:.0f} % (seed 000: 20-30 %)")
PY
