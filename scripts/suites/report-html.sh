#!/usr/bin/env bash
# `dbhost report` opened in a real browser: headless Chromium (Debian package
# chromium) loads the HTML file from disk with the network off and
# scripts/lib/report_html_check.py drives it over the DevTools protocol (a
# pipe, no port): no console error, no request but the file, the sections and
# the counts of `dbhost audit --format json` and `dbhost numa --format json`
# of the same host in the DOM, the severity and area filters, the copy button,
# print media, and real bench results charted (bench numa, bench mq, compare,
# experiment against a copy of a fixture tree). The page runs inside a
# network namespace without interfaces (unshare -n) when this machine allows
# one; the DevTools offline mode and the request log hold either way.
#
# The screenshots (report.png, report-filtered.png) and report.pdf are kept
# in $DBHOST_TEST_OUT/report-html (default /tmp/dbhost-test-out/report-html).
# Exit 77 with "SKIP: reason" when chromium or python3 is missing
# (scripts/lib/suite.sh); any failed check exits 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/suite.sh
source scripts/lib/suite.sh

browser=""
for b in chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b") && break; fi
done
[[ -n "$browser" ]] || suite_skip "chromium not installed (Debian package chromium)"
command -v python3 >/dev/null 2>&1 || suite_skip "python3 not installed (Debian package python3)"

work=$(mktemp -d "${TMPDIR:-/tmp}/dbhost-report-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=${DBHOST_TEST_OUT:-${TMPDIR:-/tmp}/dbhost-test-out}/report-html
mkdir -p "$out"
rm -f "$out"/report.png "$out"/report-filtered.png "$out"/report.pdf
bin="$work/dbhost"
CGO_ENABLED=0 go build -o "$bin" ./cmd/dbhost

host=testdata/hosts/interleaved-4n
"$bin" audit --root "$host" --workload oltp --format json -o "$work/audit.json"
"$bin" numa --root "$host" --format json >"$work/numa.json"
"$bin" collect --root "$host" --format json -o "$work/snap.json"

# Real results to chart: this host's NUMA matrix, two bench mq runs and their
# comparison, an experiment on a copy of the fixture tree (its vm.swappiness
# goes 60 -> 10 -> 60 around each B run; nothing on this machine changes).
state="$work/state"
"$bin" bench numa --duration 200ms --repeat 2 --size-mb 16 --state-dir "$state" --format json -o "$work/numa-bench.json"
"$bin" bench mq --duration 200ms --repeat 3 --senders 2 --state-dir "$state" --format json -o "$work/mq-a.json"
"$bin" bench mq --duration 200ms --repeat 3 --senders 2 --state-dir "$state" --format json -o "$work/mq-b.json"
"$bin" compare "$work/mq-a.json" "$work/mq-b.json" --format json -o "$work/compare.json"
cp -a testdata/hosts/numa-off "$work/tree"
"$bin" experiment --root "$work/tree" --state-dir "$state" --rule memory.swappiness --bench "mq --duration 150ms --senders 2" \
	--runs 2 --format json -o "$work/experiment.json" 2>/dev/null

"$bin" report --root "$host" --workload oltp -o "$work/report.html" \
	--bench "$work/numa-bench.json" --bench "$work/mq-a.json" --bench "$work/compare.json" --bench "$work/experiment.json"
echo "report: $(wc -c <"$work/report.html") bytes"
cp "$work/report.html" "$out/report.html"

# Inside a network namespace of its own when allowed (root, or user namespaces).
netns=()
if unshare -n true 2>/dev/null; then
	netns=(unshare -n)
	echo "network: Chromium runs in a new network namespace (no interfaces but a down loopback)"
elif unshare -r -n true 2>/dev/null; then
	netns=(unshare -r -n)
	echo "network: Chromium runs in a new user and network namespace"
else
	echo "network: no network namespace here; DevTools offline mode and the request log only"
fi

check() {
	"${netns[@]}" python3 scripts/lib/report_html_check.py --html "$work/report.html" --audit "$work/audit.json" \
		--numa "$work/numa.json" --snapshot "$work/snap.json" --out "$out" --matrices 3 --charts 4 -- \
		"$browser" --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check \
		--disable-extensions --disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$work/profile-$1"
}
# Chromium itself aborts now and then on this shared machine (exit 3 from
# the checker, not a check): up to three attempts, each with a fresh profile.
rc=0
for attempt in 1 2 3; do
	rc=0
	check "$attempt" || rc=$?
	[[ $rc -eq 3 ]] || break
	echo "Chromium itself failed (attempt $attempt, not a check of the page)"
done
[[ $rc -eq 0 ]] || exit 1
echo "screenshots: $out/report.png, $out/report-filtered.png; printed: $out/report.pdf"
