#!/usr/bin/env bash
# A real PostgreSQL (Debian's package) on a private socket, no TCP: dbhost must
# find the postmaster and its backends, their user, allowed CPUs/nodes and
# memory per node, with and without root, and audit --db auto must detect it.
# Exit 0 passed, 77 skipped with the reason (scripts/lib/suite.sh), else failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/suite.sh
source scripts/lib/suite.sh
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [[ -z "$pgbin" || ! -x "$pgbin/initdb" ]]; then
	suite_skip "PostgreSQL server not installed (package postgresql)"
fi
if [[ $(id -u) -ne 0 ]]; then suite_skip "the PostgreSQL suite needs root (it runs initdb as postgres and collect as nobody)"; fi
if ! id postgres >/dev/null 2>&1; then suite_skip "no postgres user (package postgresql creates it)"; fi
work=$(mktemp -d /tmp/dbhost-pg.XXXXXX)
chown postgres "$work"
bin="$work/dbhost"
CGO_ENABLED=0 go build -o "$bin" ./cmd/dbhost
chmod 755 "$work" "$bin"
pgctl() { su postgres -s /bin/sh -c "cd / && $*"; }
cleanup() {
	pgctl "$pgbin/pg_ctl -D $work/data -m immediate stop" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
pgctl "$pgbin/initdb -D $work/data -A trust >/dev/null"
pgctl "$pgbin/pg_ctl -D $work/data -l $work/pg.log -w -o \"-c listen_addresses='' -k $work -c shared_buffers=64MB\" start" >/dev/null
pid=$(head -1 "$work/data/postmaster.pid")
echo "postmaster pid $pid"

"$bin" collect --format json -o "$work/snap.json"
python3 - "$work/snap.json" "$pid" "$work/data" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); pid = int(sys.argv[2]); data = sys.argv[3]
procs = [p for p in s["processes"] if p["engine"] == "postgres"]
pm = [p for p in procs if p["pid"] == pid]
assert pm, f"postmaster {pid} not found among {[(p['pid'], p['comm']) for p in procs]}"
pm = pm[0]
errors = []
if pm["role"] != "postmaster": errors.append(f"role {pm['role']}")
if pm["user"] != "postgres": errors.append(f"user {pm['user']}")
if pm.get("instance") != data: errors.append(f"instance {pm.get('instance')} != {data}")
online = s["topology"]["cpus_online"]
if pm["cpus_allowed"] != online: errors.append(f"cpus_allowed {pm['cpus_allowed']} != online {online}")
if not pm["mems_allowed"]: errors.append("mems_allowed empty")
if not pm.get("numa"): errors.append("no numa_maps totals for the postmaster")
elif sum(n["total_kb"] for n in pm["numa"]) <= 0: errors.append("numa totals are zero")
# Its children only: other PostgreSQL servers (another suite's, the host's own)
# run beside it on a shared machine and are postmasters of their own.
backends = [p for p in procs if p["ppid"] == pid]
if not backends: errors.append("no postgres child processes found")
if any(p["role"] == "postmaster" for p in backends): errors.append("a child was taken for a postmaster")
if errors:
    print("FAIL:", "; ".join(errors)); print(json.dumps(pm, indent=1)); sys.exit(1)
print(f"ok: postmaster {pid} role={pm['role']} user={pm['user']} cpus={pm['cpus_allowed']} "
      f"numa_kb={[n['total_kb'] for n in pm['numa']]}, {len(backends)} children")
PY

# As a non-root user the scan must still work; what it cannot read is explained.
su nobody -s /bin/sh -c "$bin collect --format json" > "$work/nonroot.json"
python3 - "$work/nonroot.json" "$pid" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); pid = int(sys.argv[2])
assert s["source"]["root"] is False, "source.root should be false for nobody"
pm = [p for p in s["processes"] if p["pid"] == pid]
assert pm, "non-root scan lost the postmaster"
reasons = [a for a in s["absent"] if "permission denied" in a["reason"]]
assert pm[0].get("numa") is None, "numa_maps of another user's process cannot be read as nobody"
assert reasons, "no permission-denied absence recorded for what nobody could not read"
print(f"ok as nobody: postmaster found, {len(reasons)} fact(s) explained as permission denied:",
      sorted({a['fact'] for a in reasons})[:5])
PY

if "$bin" help audit 2>/dev/null | grep -q -- '--db'; then
	"$bin" audit --format json > "$work/audit.json" || [[ $? -eq 3 ]]
	python3 - "$work/audit.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
h = a["hosts"][0]
db = h.get("db") or h.get("detected_db")
assert db == "postgres", f"audit --db auto detected {db!r}, want postgres"
print("ok: audit --db auto detected postgres")
PY
fi
