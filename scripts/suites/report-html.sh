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
# A fleet report of every fixture host (and copies, and the AIX fixture
# bundles) is checked the same way against `dbhost audit --snapshot --format
# json` (scripts/lib/fleet_html_check.py); the report of an AIX host against
# its collect and audit JSON (scripts/lib/aix_html_check.py).
#
# The screenshots (report.png, report-filtered.png, report-aix.png, fleet.png), report.pdf
# and Chromium's logs are kept in $DBHOST_TEST_OUT/report-html (default
# /tmp/dbhost-test-out/report-html); a second run on the machine waits for
# the first (flock on its .lock) instead of overwriting them.
# Exit 77 with "SKIP: reason" when chromium or python3 is missing
# (scripts/lib/suite.sh); any failed check exits 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/suite.sh
source scripts/lib/suite.sh

# Debian's /usr/bin/chromium is a shell wrapper adding its defaults
# (--enable-gpu-rasterization, --load-extension=, remote extensions) and a
# /dev/shm size test that breaks when findmnt lists two mounts there (as in
# this machine's containers: "[: ...: unexpected operator"): the browser
# binary itself is run when it is there, with only the flags below.
browser=""
for b in /usr/lib/chromium/chromium chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b") && break; fi
done
[[ -n "$browser" ]] || suite_skip "chromium not installed (Debian package chromium)"
command -v python3 >/dev/null 2>&1 || suite_skip "python3 not installed (Debian package python3)"

work=$(mktemp -d "${TMPDIR:-/tmp}/dbhost-report-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=${DBHOST_TEST_OUT:-${TMPDIR:-/tmp}/dbhost-test-out}/report-html
mkdir -p "$out"
# Two runs on one machine (two clones, two engineers) share $out: the second
# waits for the first, so neither removes or overwrites the other's
# screenshots while they are looked at by its checks.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$out/.lock"
	flock 9
fi
rm -f "$out"/report.png "$out"/report-filtered.png "$out"/report.pdf "$out"/fleet.png "$out"/report-aix.png "$out"/chromium-*.log
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

# A fleet: every fixture host collected, and the rhel9 host five times more
# (its snapshots told apart by file), so that rules fail on more hosts than
# the fleet report names before "+N more".
mkdir "$work/fleet"
for tree in testdata/hosts/*/; do
	name=$(basename "$tree")
	from=--root
	[[ -d "$tree/proc" || -d "$tree/sys" ]] || from=--sosreport
	"$bin" collect "$from" "$tree" --format json -o "$work/fleet/$name.json"
done
for k in 1 2 3 4 5; do cp "$work/fleet/rhel9.json" "$work/fleet/rhel9-copy$k.json"; done
# AIX hosts in the fleet beside the Linux ones (issue 16): the bundles of the
# AIX fixtures, one of them as the .tar.gz the collector writes.
aixb=internal/facts/aix/testdata/bundles
tar czf "$work/aix72.tar.gz" -C "$aixb" aix72
"$bin" collect --aix-bundle "$work/aix72.tar.gz" --format json -o "$work/fleet/aix72.json"
"$bin" collect --aix-bundle "$aixb/aix61" --format json -o "$work/fleet/aix61.json"
"$bin" report --snapshot "$work/fleet/*.json" -o "$work/fleet.html"
"$bin" audit --snapshot "$work/fleet/*.json" --format json -o "$work/fleet-audit.json"
echo "fleet report: $(ls "$work/fleet" | wc -l) hosts, $(wc -c <"$work/fleet.html") bytes"
cp "$work/fleet.html" "$out/fleet.html"

"$bin" report --root "$host" --workload oltp -o "$work/report.html" \
	--bench "$work/numa-bench.json" --bench "$work/mq-a.json" --bench "$work/compare.json" --bench "$work/experiment.json"
echo "report: $(wc -c <"$work/report.html") bytes"
cp "$work/report.html" "$out/report.html"

# The report of an AIX host: its picture against collect's and audit's JSON.
"$bin" report --aix-bundle "$work/aix72.tar.gz" -o "$work/report-aix.html"
"$bin" audit --aix-bundle "$work/aix72.tar.gz" --format json -o "$work/audit-aix.json"
echo "AIX report: $(wc -c <"$work/report-aix.html") bytes"
cp "$work/report-aix.html" "$out/report-aix.html"

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

# chromium_check NAME CHECKER [ARGS...]: runs a checker (scripts/lib) against
# a Chromium of its own: its own profile and its own HOME (Chromium's crash
# handler keeps its database in $HOME/.config/chromium/Crash Reports whatever
# the profile: shared by every Chromium of the machine's users otherwise),
# no zygote (--no-zygote, allowed with --no-sandbox: the browser forks its
# renderers itself, with no zygote to lose contact with under load), its
# stderr in $out/chromium-NAME.log (scripts/lib/cdp.py quotes its FATAL line
# when it dies). Exit 3 from the checker is Chromium failing, not a check of
# the page: it is said, with Chromium's last words, and tried once more with
# a fresh profile and HOME; any other failure is the page's.
chromium_check() {
	local name=$1 checker=$2
	shift 2
	local attempt rc log dir
	for attempt in 1 2; do
		log="$out/chromium-$name.log"
		: >"$log"
		dir=$(mktemp -d "$work/chromium-$name.XXXXXX")
		mkdir "$dir/home"
		rc=0
		HOME="$dir/home" CDP_LOG="$log" "${netns[@]}" python3 "scripts/lib/$checker" "$@" -- \
			"$browser" "${chromium_flags[@]}" --user-data-dir="$dir/profile" || rc=$?
		[[ $rc -eq 3 ]] || return "$rc"
		echo "CHROMIUM FAILED (attempt $attempt of $name, not a check of the page); its log: $log"
		grep -E 'FATAL|Check failed' "$log" | tail -3 || true
		cp "$log" "$out/chromium-$name-failed-$attempt.log"
	done
	return 1
}
chromium_flags=(--headless --no-sandbox --no-zygote --disable-gpu --no-first-run --no-default-browser-check
	--disable-extensions --disable-background-networking --disable-component-update --disable-sync)

status=0
chromium_check report report_html_check.py --html "$work/report.html" --audit "$work/audit.json" \
	--numa "$work/numa.json" --snapshot "$work/snap.json" --out "$out" --matrices 3 --charts 4 || status=1
chromium_check aix aix_html_check.py --html "$work/report-aix.html" --audit "$work/audit-aix.json" \
	--snapshot "$work/fleet/aix72.json" --out "$out" || status=1
chromium_check fleet fleet_html_check.py --html "$work/fleet.html" --audit "$work/fleet-audit.json" --out "$out" || status=1
[[ $status -eq 0 ]] || exit 1
echo "screenshots: $out/report.png, $out/report-filtered.png, $out/report-aix.png, $out/fleet.png; printed: $out/report.pdf"
