#!/usr/bin/env bash
# Seed 000 (Scenario 2: HugePages): the page tables of a shared-memory
# database with and without hugepages. Every process that touches a page of
# shared memory maps it in its own page tables: with 4 KiB pages that is
# 8 bytes per 4 KiB per process, with 2 MiB pages 8 bytes per 2 MiB. The
# seed (Oracle, 200 users): PageTables 5.5 GB -> 175 MB.
#
# Here: a real PostgreSQL with shared_buffers $SB, an unlogged table filling
# ~85 % of it (one 7000-byte row per 8 KiB page, read into shared buffers
# with pg_prewarm), and $N connections (pgbench clients) that each read one
# byte at the start and one at the end of every page of it (both 4 KiB
# halves of every buffer), then hold (pg_sleep) while the script sums the
# page tables of those backends (VmPTE in /proc/PID/status) and reads
# PageTables from /proc/meminfo. First with huge_pages = off; then dbhost
# sizes the hugepage pool from the postgresql.conf (rule
# memory.hugepages-too-few) and 'dbhost apply' reserves it, journaled; the
# server restarts with huge_pages = on and the same is measured; then the
# server stops and 'dbhost rollback' gives the pool back. The pool is
# reserved only if the memory is free (MemAvailable must keep 4 GiB after
# it): otherwise SKIP. On any exit the server is stopped and the rollback
# runs; the script checks vm.nr_hugepages is back to its value.
#
#   experiments/hugepages-pagetables.sh           # SB=2GB N=100
#   SB=4GB N=200 experiments/hugepages-pagetables.sh
source "$(dirname "$0")/lib.sh"
SB=${SB:-2GB}
N=${N:-100}
hostline
orig_pool=$(cat /proc/sys/vm/nr_hugepages)
echo "vm.nr_hugepages $orig_pool; shared memory THP: $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null || echo unknown)"
# The rollback runs after the server has stopped (cleanups run last first).
cleanups+=("restore_pool")
restore_pool() {
	[[ -d $work/state ]] && dbhost rollback --state-dir "$work/state" >/dev/null 2>&1
	local now
	now=$(cat /proc/sys/vm/nr_hugepages)
	if [[ $now != "$orig_pool" ]]; then
		echo "!! vm.nr_hugepages is $now after the rollback, was $orig_pool: writing it back" >&2
		echo "$orig_pool" >/proc/sys/vm/nr_hugepages || echo "!! could not restore vm.nr_hugepages=$orig_pool" >&2
	fi
}
mb() { python3 -c "import sys; v=sys.argv[1]; u={'kB':1/1024,'MB':1,'GB':1024,'TB':1024*1024}; n=''.join(c for c in v if c.isdigit()); s=v[len(n):] or 'MB'; print(int(int(n)*u[s]))" "$1"; }
sbmb=$(mb "$SB")
start_pg -c shared_buffers=64MB # initdb and a first start; the settings below go in postgresql.conf
psql() { "$PGBIN/psql" "$PGDSN" -XAtq -v ON_ERROR_STOP=1 "$@"; }
conf=$PGDATA_DIR/postgresql.conf
cat >>"$conf" <<EOF
# hugepages-pagetables experiment
shared_buffers = $SB
max_connections = $((N + 10))
huge_pages = off
max_parallel_workers_per_gather = 0
EOF
port=${PGDSN##*port=}; port=${port%% *}
pgrestart() {
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w stop >/dev/null
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$work/pg/log" -w -t 300 \
		-o "-c listen_addresses=127.0.0.1 -p $port -k $work/pg" start >/dev/null
}
pgrestart
rows=$((sbmb * 1024 * 1024 / 8192 * 85 / 100))
say "table: $rows rows of 7000 bytes, one per 8 KiB page (~$((rows * 8 / 1024)) MiB), unlogged; shared_buffers $SB"
psql -c "CREATE EXTENSION pg_prewarm" \
	-c "CREATE UNLOGGED TABLE t (id int, pad bytea)" -c "ALTER TABLE t ALTER pad SET STORAGE PLAIN" \
	-c "INSERT INTO t SELECT g, decode(repeat('ab', 7000), 'hex') FROM generate_series(1, $rows) g"
pages=$(psql -c "SELECT pg_relation_size('t') / 8192")
echo "t: $pages pages"
printf 'SELECT sum(get_byte(pad, 0) + get_byte(pad, 6999)) FROM t;\nSELECT pg_sleep(:hold);\n' >"$work/touch.sql"
chmod 644 "$work/touch.sql"

ptkb() { awk '/^PageTables:/ {print $2}' /proc/meminfo; }
# measure NAME: prewarm, N clients touch every page and hold; sum their VmPTE.
measure() {
	local name=$1 before t0 n=0 pids sum
	psql -c "SELECT pg_prewarm('t')" >/dev/null
	before=$(ptkb)
	t0=$(date +%s.%N)
	"$PGBIN/pgbench" -n -c "$N" -j 2 -t 1 -D hold=3600 -f "$work/touch.sql" "$PGDSN" >"$work/pgbench-$name.log" 2>&1 &
	local pgb=$!
	cleanups+=("kill $pgb 2>/dev/null")
	for _ in $(seq 1 1800); do
		n=$(psql -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
		[[ $n -ge $N ]] && break
		kill -0 $pgb 2>/dev/null || { cat "$work/pgbench-$name.log"; echo "pgbench ended early"; exit 1; }
		sleep 1
	done
	[[ $n -ge $N ]] || { echo "only $n of $N clients touched the table in 30 minutes"; exit 1; }
	local secs
	secs=$(python3 -c "import time; print(round(time.time() - $t0, 1))")
	pids=$(psql -c "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
	sum=0
	for p in $pids; do
		v=$(awk '/^VmPTE:/ {print $2}' "/proc/$p/status")
		sum=$((sum + v))
	done
	local after
	after=$(ptkb)
	psql -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'PgSleep'" >/dev/null
	wait $pgb 2>/dev/null || true
	echo "$name $sum $((after - before)) $secs" >>"$work/results"
	printf '%-16s %d backends: VmPTE sum %d kB (%d MiB, %d kB each); /proc/meminfo PageTables %d -> %d kB (%+d kB, the whole host); touched in %s s\n' \
		"$name" "$n" "$sum" $((sum / 1024)) $((sum / n)) "$before" "$after" $((after - before)) "$secs"
}

say "huge_pages = off: $N clients touch the table"
measure huge_pages=off

say "dbhost sizes the hugepage pool from $conf"
dbhost apply --dry-run --only memory.hugepages-too-few --db postgres --artifact "$conf" --state-dir "$work/state" | sed 's/^/  /'
want=$(dbhost audit --db postgres --artifact "$conf" --format json |
	python3 -c 'import json,sys,re
for h in json.load(sys.stdin)["hosts"]:
    for f in h["findings"]:
        if f["id"] == "memory.hugepages-too-few":
            print(re.search(r"vm.nr_hugepages=(\d+)", " ".join(f["fix"]["runtime"])).group(1))')
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w stop >/dev/null
# PostgreSQL's own count (15+; it needs the server stopped).
exact=$(runuser -u postgres -- "$PGBIN/postgres" -D "$PGDATA_DIR" -C shared_memory_size_in_huge_pages 2>/dev/null || echo "?")
hpkb=$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)
echo "dbhost: vm.nr_hugepages=$want; PostgreSQL's own count (postgres -C shared_memory_size_in_huge_pages): $exact pages of $hpkb kB"
avail=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
need_kb=$(((want - orig_pool) * hpkb))
if ((avail - need_kb < 4 * 1024 * 1024)); then
	echo "SKIP: reserving $((need_kb / 1024)) MiB of hugepages would leave $(((avail - need_kb) / 1024)) MiB available (MemAvailable $((avail / 1024)) MiB; the script keeps 4 GiB for the others on this host)"
	exit 0
fi
if ! dbhost apply --only memory.hugepages-too-few --db postgres --artifact "$conf" --state-dir "$work/state" >"$work/apply.log" 2>&1; then
	cat "$work/apply.log"
	echo "SKIP: the kernel did not grant the pool (fragmented memory?); rolled back"
	exit 0
fi
got=$(cat /proc/sys/vm/nr_hugepages)
echo "dbhost apply: vm.nr_hugepages $orig_pool -> $got (journaled in $work/state; 'dbhost rollback' restores it)"
sed -i 's/^huge_pages = off$/huge_pages = on/' "$conf"
if ! runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$work/pg/log" -w -t 300 \
	-o "-c listen_addresses=127.0.0.1 -p $port -k $work/pg" start >/dev/null; then
	tail -5 "$work/pg/log"
	echo "FAIL: PostgreSQL with huge_pages = on did not start on the pool dbhost sized ($got pages; PostgreSQL counts $exact)"
	exit 1
fi
echo "PostgreSQL up with huge_pages = on: $(awk '/^HugePages_(Total|Free|Rsvd):/ {printf "%s %s  ", $1, $2}' /proc/meminfo)"
say "huge_pages = on: $N clients touch the table"
measure huge_pages=on
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w stop >/dev/null
dbhost rollback --state-dir "$work/state" >"$work/rollback.log" 2>&1 || { cat "$work/rollback.log"; echo "FAIL: rollback"; exit 1; }
echo "dbhost rollback: vm.nr_hugepages $(cat /proc/sys/vm/nr_hugepages) (was $orig_pool)"
python3 - "$work/results" "$N" <<'PY'
import sys
r = {l.split()[0]: list(map(float, l.split()[1:])) for l in open(sys.argv[1])}
off, on = r["huge_pages=off"], r["huge_pages=on"]
print(f"page tables of the {sys.argv[2]} backends: huge_pages off {off[0]/1024:.1f} MiB, on {on[0]/1024:.1f} MiB: {off[0]/on[0]:.0f}x smaller")
print(f"/proc/meminfo PageTables growth (whole host, others' processes included): off {off[1]/1024:+.1f} MiB, on {on[1]/1024:+.1f} MiB")
print(f"time for the clients to connect and touch the table: off {off[2]:.1f} s, on {on[2]:.1f} s")
print("seed 000 (Oracle, 200 users): 5.5 GB -> 175 MB, 31x")
PY
