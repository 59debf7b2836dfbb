#!/usr/bin/env bash
# Live databases end to end: the real binary against a real PostgreSQL
# (package postgresql) and a real MariaDB (package mariadb-server), each
# started by internal/testdb in a temporary directory as its own user, on a
# private socket (and a loopback port chosen at run time), always stopped:
# collect/audit --db postgres|mysql as root (discovery, peer authentication),
# as nobody (what is needed), --pg/--mysql with a password that must never
# be shown. Exit 0 passed, 77 skipped with the reason, else failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/suite.sh
source scripts/lib/suite.sh
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then suite_skip "PostgreSQL server not installed (package postgresql)"; fi
if ! command -v mariadbd >/dev/null && [[ ! -x /usr/sbin/mariadbd ]]; then suite_skip "MariaDB server not installed (package mariadb-server)"; fi
if [[ $(id -u) -ne 0 ]]; then suite_skip "the live database suite needs root (servers run as postgres/mysql; dbhost connects as their OS user)"; fi
for u in postgres mysql nobody; do
	id "$u" >/dev/null 2>&1 || suite_skip "no $u user (packages postgresql, mariadb-server)"
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
DBHOST_LIVEDB_SUITE=1 go test -count=1 -v -run 'TestLiveDB' ./cmd/dbhost/ >"$out" 2>&1 || status=$?
grep -E '^(=== RUN|--- |\s+\S+_test.go:|ok|FAIL|PASS)' "$out" || true
if [[ $status -ne 0 ]]; then
	tail -50 "$out"
	exit 1
fi
if grep -q -- '--- SKIP' "$out"; then
	echo "FAIL: a live database test skipped although its prerequisites are here"
	exit 1
fi
