#!/usr/bin/env bash
# pgbench TPS on this host, three ways, same PostgreSQL, same run:
#   defaults  the host as it is;
#   dbhost    after 'dbhost apply --workload oltp --db postgres' (journaled;
#             'dbhost rollback' after the measurement);
#   tuned     tuned 2.20's stock throughput-performance profile (the daemon
#             started without a bus; SIGTERM restores what it set, and the
#             kernel side effects it does not restore are put back).
# Interleaved (defaults dbhost tuned, the order rotated each round) to
# cancel drift; every value either may touch is recorded first and checked
# after every round: anything not back is written back and named. One tuned
# at a time on this machine: the lock of scripts/suites/tuned.sh.
#
#   experiments/pgbench-tuning.sh                  # 3 rounds of 20 s, scale 10
#   ROUNDS=5 D=30 SCALE=20 CLIENTS=8 experiments/pgbench-tuning.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=../scripts/lib/tuned.sh
source scripts/lib/tuned.sh
ROUNDS=${ROUNDS:-3}
D=${D:-20}
SCALE=${SCALE:-10}
CLIENTS=${CLIENTS:-4}
tuned_available || { echo "SKIP: tuned, tuned-adm or dbus-daemon not installed (packages tuned, dbus)"; exit 0; }
if [[ -s /run/tuned/tuned.pid ]] && kill -0 "$(cat /run/tuned/tuned.pid)" 2>/dev/null; then
	echo "SKIP: a tuned daemon already runs here (pid $(cat /run/tuned/tuned.pid))"; exit 0
fi
exec 9>/run/lock/dbhost-tuned.lock
flock -w 300 9 || { echo "SKIP: another tuned run held /run/lock/dbhost-tuned.lock for 300 s"; exit 0; }
hostline
tuned_record "$work/before"
# Whatever happens, the host ends as recorded (cleanups run last first:
# this one after the server stops).
cleanups+=("tuned_down; dbhost rollback --state-dir $work/state >/dev/null 2>&1; tuned_restore $work/before")
start_pg -c shared_buffers=256MB -c max_connections=50
"$PGBIN/pgbench" -i -q -s "$SCALE" "$PGDSN" >"$work/init.log" 2>&1 || { cat "$work/init.log"; exit 1; }
echo "pgbench -i -s $SCALE; each measurement: dbhost bench db --clients $CLIENTS --duration ${D}s (tpcb-like, prepared)"
say "dbhost apply --dry-run --workload oltp --db postgres (what the dbhost variant changes)"
dbhost apply --dry-run --workload oltp --db postgres --state-dir "$work/state" | grep -E '^[~?]' | sed 's/^/  /'

setup() {
	case $1 in
	defaults) ;;
	dbhost) dbhost apply --workload oltp --db postgres --state-dir "$work/state" >"$work/apply.log" 2>&1 ||
		{ cat "$work/apply.log"; echo "dbhost apply failed"; exit 1; } ;;
	tuned) tuned_up throughput-performance >"$work/tuned-up.log" 2>&1 || { cat "$work/tuned-up.log"; echo "tuned did not come up"; exit 1; } ;;
	esac
}
teardown() {
	case $1 in
	dbhost) dbhost rollback --state-dir "$work/state" >"$work/rollback.log" 2>&1 || { cat "$work/rollback.log"; echo "dbhost rollback failed"; exit 1; } ;;
	tuned) tuned_down ;;
	esac
	tuned_record "$work/now"
	if ! diff -q "$work/before" "$work/now" >/dev/null; then
		echo "  after $1: not back as recorded (put back now):"
		diff "$work/before" "$work/now" | grep -E '^[<>]' | sed 's/^/    /'
		tuned_restore "$work/before"
		tuned_record "$work/now"
		diff -q "$work/before" "$work/now" >/dev/null || { echo "FAIL: could not restore the host"; diff "$work/before" "$work/now"; exit 1; }
	fi
}
variants=(defaults dbhost tuned)
for r in $(seq 1 "$ROUNDS"); do
	for i in 0 1 2; do
		v=${variants[$(((i + r - 1) % 3))]}
		setup "$v"
		if [[ $r == 1 && $v != defaults ]]; then
			tuned_record "$work/during"
			echo "  $v changed:$(diff "$work/before" "$work/during" | sed -n 's/^> \(sysctl\|file\) /  /p' | tr '\t' '=' | tr '\n' ';')"
		fi
		dbhost bench db --dsn "$PGDSN" --clients "$CLIENTS" --duration "${D}s" --format json -o "$work/$v-$r.json" --state-dir "$work/bstate"
		teardown "$v"
		printf 'round %d %-8s %8.1f tps\n' "$r" "$v" "$(py 'r["results"][0]["ops_per_sec"]' "$work/$v-$r.json")"
	done
done
# One result per variant with every round as a sample, for dbhost compare
# (Welch's 95 % interval over the rounds, and a verdict).
python3 - "$work" "$ROUNDS" <<'PY'
import json, statistics as st, sys
work, rounds = sys.argv[1], int(sys.argv[2])
for v in ("defaults", "dbhost", "tuned"):
    runs = [json.load(open(f"{work}/{v}-{r}.json")) for r in range(1, rounds + 1)]
    samples = []
    for r, x in enumerate(runs, 1):
        for smp in x["samples"]:
            smp["repeat"] = r
            samples.append(smp)
    out = runs[0]
    out["samples"] = samples
    tps = [x["results"][0]["ops_per_sec"] for x in runs]
    out["results"][0]["ops_per_sec"] = st.median(tps)
    out["params"]["repeat"] = rounds
    json.dump(out, open(f"{work}/{v}.json", "w"))
    print(f"{v:9s} median {st.median(tps):8.1f} tps  (rounds: {', '.join(f'{t:.1f}' for t in tps)})")
PY
for v in dbhost tuned; do
	say "dbhost compare defaults $v"
	dbhost compare "$work/defaults.json" "$work/$v.json" | grep -v '^$' | sed 's/^/  /'
done
echo "host settings: as recorded before the experiment (checked after every variant)"
