# Shared by the experiments/*.sh scripts (sourced): builds dbhost once,
# starts a scratch PostgreSQL when asked, and removes everything on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $(id -u) -eq 0 ]] || { echo "SKIP: the experiments need root (network namespaces, hugepages, cgroups)"; exit 0; }
work=$(mktemp -d /tmp/dbhost-exp.XXXXXX)
chmod 755 "$work"
cleanups=()
on_exit() {
	local i
	for ((i=${#cleanups[@]}-1; i>=0; i--)); do eval "${cleanups[$i]}" || true; done
	rm -rf "$work"
}
trap on_exit EXIT
trap 'exit 130' INT TERM
CGO_ENABLED=0 go build -o "$work/dbhost" ./cmd/dbhost
dbhost() { "$work/dbhost" "$@"; }
say() { printf '== %s\n' "$*"; }
hostline() { echo "host: $(hostname), $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"; }

# start_pg [postgres -c options...]: a scratch cluster on a Unix socket in
# $work/pg and a TCP port picked at run time; sets PGDSN, PGBIN, PGDATA_DIR.
start_pg() {
	PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
	[[ -n "$PGBIN" && -x "$PGBIN/initdb" ]] || { echo "SKIP: PostgreSQL server not installed (package postgresql)"; exit 0; }
	id postgres >/dev/null 2>&1 || { echo "SKIP: no postgres user"; exit 0; }
	mkdir -p "$work/pg" && chown postgres "$work/pg"
	PGDATA_DIR=$work/pg/data
	runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA_DIR" -A trust -U postgres >/dev/null
	local port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$work/pg/log" -w -t 120 \
		-o "-c listen_addresses=127.0.0.1 -p $port -k $work/pg $*" start >/dev/null
	cleanups+=("runuser -u postgres -- $PGBIN/pg_ctl -D $PGDATA_DIR -m fast -w stop >/dev/null 2>&1")
	PGDSN="host=$work/pg port=$port user=postgres dbname=postgres sslmode=disable"
}

# jq-less JSON reading: py 'expression over r' FILE
py() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($1)" "$2"; }
