#!/usr/bin/env bash
# Seed 002: connection-pool validation in the foreground (a query on every
# borrow) vs in the background, at 6 ms one-way delay between the pool and
# the database. The seed: 17.9 ms vs 9.9 ms mean per request (1.8x).
# Pass: background validation gives >= 1.6x lower mean latency.
#
#   experiments/pool-validation.sh            # 3 repeats of 300 requests per mode
#   REQ=1000 REPEAT=5 experiments/pool-validation.sh
source "$(dirname "$0")/lib.sh"
REQ=${REQ:-300}
REPEAT=${REPEAT:-3}
hostline
start_pg -c shared_buffers=64MB
say "dbhost bench pool --delay 6ms --requests $REQ --repeat $REPEAT"
dbhost bench pool --dsn "$PGDSN" --delay 6ms --requests "$REQ" --repeat "$REPEAT" --size 10 --format json -o "$work/pool.json" --state-dir "$work/state"
dbhost compare "$work/pool.json" "$work/pool.json" >/dev/null # the result is well-formed
python3 - "$work/pool.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x["case"]: x for x in r["results"]}
f, b = rows["foreground"]["latency_us"], rows["background"]["latency_us"]
ratio = f["mean"] / b["mean"]
print(f"link: {r['params'].get('link')} ({r['params'].get('link_delay')} each way)")
for name, l in (("foreground", f), ("background", b)):
    print(f"{name:10s} mean {l['mean']/1e3:6.2f} ms  p50 {l['p50']/1e3:6.2f}  p99 {l['p99']/1e3:6.2f}  max {l['max']/1e3:6.2f}  ({l['count']} requests)")
print(f"foreground / background mean latency: {ratio:.2f}x (seed 002: 17.9/9.9 = 1.81x)")
if ratio < 1.6:
    print("FAIL: below 1.6x"); sys.exit(1)
print("PASS: >= 1.6x")
PY
