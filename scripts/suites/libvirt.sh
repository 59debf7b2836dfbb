#!/usr/bin/env bash
# dbhost place's kvm-guest placement against a real libvirt (Debian packages
# libvirt-daemon-driver-qemu, libvirt-clients, qemu-system-x86): a PRIVATE
# libvirtd is started as the unprivileged user nobody, with its own runtime,
# config and cache directories under a mktemp -d (session mode, its own
# socket): the machine's system libvirtd, and any session of a real user, are
# never contacted. Then:
#   - a small TCG guest (type qemu) is defined with a definition holding what
#     a real one holds beyond the placement (metadata, a virtio disk with
#     cache none, a host CPU model, a VNC password);
#   - `dbhost place --apply` (fixture tree laptop-2s copied, so the per-node
#     hugepage pools are sysfs writes in the tree) defines the guest with its
#     placement; `virsh dumpxml --inactive` must hold the fragments dbhost
#     wrote (-o DIR: libvirt/NAME.xml), read with the same parser, and the
#     rest of the definition unchanged (metadata, disk, password);
#   - a second libvirt define from the generated fragments alone
#     (libvirt/NAME.xml pasted into a bare TCG guest) is accepted by libvirt;
#   - `dbhost verify` says ok; an outside change (virsh vcpupin --config) is
#     drift (exit 3); applying again redefines it and then changes nothing;
#   - `dbhost rollback` defines the old definition back: dumpxml is byte for
#     byte the one before the apply, the tree's pools are back; rollback
#     again restores nothing;
#   - kill -9 of place --apply after every journal step (a testhooks build),
#     then rollback: byte for byte the definition before, every time.
# Missing packages or no unprivileged user: exit 77, "SKIP: reason".
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/suite.sh
source scripts/lib/suite.sh

for b in virsh libvirtd qemu-system-x86_64 setpriv; do
	command -v "$b" >/dev/null || suite_skip "$b not installed (packages libvirt-clients, libvirt-daemon-driver-qemu, qemu-system-x86, util-linux)"
done
[[ -d /usr/lib/x86_64-linux-gnu/libvirt/connection-driver || -d /usr/lib64/libvirt/connection-driver ]] ||
	suite_skip "libvirt's QEMU driver not installed (package libvirt-daemon-driver-qemu)"
[[ $(id -u) -eq 0 ]] || suite_skip "the suite starts libvirtd as the user nobody (setpriv): run as root"
id nobody >/dev/null 2>&1 || suite_skip "no user nobody to run the private libvirtd as"

work=$(mktemp -d /tmp/dbhost-libvirt-suite.XXXXXX)
chmod 755 "$work"
lv="$work/libvirt"
mkdir -p "$lv/home" "$lv/run"
chown -R nobody:"$(id -gn nobody)" "$lv"
chmod 700 "$lv/run"
daemon=""
cleanup() {
	if [[ -n "$daemon" ]] && kill -0 "$daemon" 2>/dev/null; then
		kill "$daemon" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$daemon" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

fail=0
check() { # check DESCRIPTION COMMAND...: run, report
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fail=1; fi
}

bin="$work/dbhost"
CGO_ENABLED=0 go build -o "$bin" ./cmd/dbhost

# The private daemon: session mode as nobody, every directory under $lv.
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	env -i HOME="$lv/home" XDG_RUNTIME_DIR="$lv/run" XDG_CONFIG_HOME="$lv/home/.config" \
	XDG_CACHE_HOME="$lv/home/.cache" PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	libvirtd >"$work/libvirtd.log" 2>&1 &
daemon=$!
sock="$lv/run/libvirt/libvirt-sock"
uri="qemu+unix:///session?socket=$sock"
for _ in $(seq 100); do
	[[ -S $sock ]] && virsh -q -c "$uri" uri >/dev/null 2>&1 && break
	kill -0 "$daemon" 2>/dev/null || break
	sleep 0.2
done
if ! virsh -q -c "$uri" uri >/dev/null 2>&1; then
	tail -20 "$work/libvirtd.log"
	echo "FAILED: the private libvirtd did not answer on $sock"
	exit 1
fi
echo "private libvirtd pid $daemon on $uri ($(virsh -q -c "$uri" version | grep -i 'running hypervisor' || true))"
v() { virsh -q -c "$uri" "$@"; }

dom=dbhost-suite-db1
cat >"$work/db1.xml" <<EOF
<domain type='qemu'>
  <name>$dom</name>
  <description>database guest of the dbhost libvirt suite</description>
  <metadata>
    <app:owner xmlns:app="http://example.com/app">dba team &amp; friends</app:owner>
  </metadata>
  <memory unit='MiB'>256</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <cpu mode='custom' match='exact'><model fallback='allow'>qemu64</model></cpu>
  <devices>
    <emulator>$(command -v qemu-system-x86_64)</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw' cache='none' io='native'/>
      <source file='$work/db1-data.img'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <graphics type='vnc' port='-1' autoport='yes' passwd='s3cret'/>
  </devices>
</domain>
EOF
v define "$work/db1.xml" >/dev/null
v dumpxml --inactive --security-info "$dom" >"$work/before.xml"

tree="$work/tree"
cp -a testdata/hosts/laptop-2s "$tree"
pool() { cat "$tree/sys/devices/system/node/node$1/hugepages/hugepages-2048kB/nr_hugepages"; }
pools_before="$(pool 0) $(pool 1)"
cat >"$work/spec.yaml" <<EOF
strategy: binding
instances:
  - name: db1
    engine: kvm-guest
    domain: $dom
    cpus: 4
    memory_gb: 1
    class: guaranteed
  - name: pg
    engine: postgres
    cpus: 2
    memory_gb: 0.5
    class: guaranteed
EOF
state="$work/state"
out="$work/out"

# --root without --libvirt-uri: exit 2, nothing applied
set +e
"$bin" place --spec "$work/spec.yaml" --root "$tree" --apply --state-dir "$state" >"$work/noapply.txt" 2>&1
code=$?
set -e
check "place --apply --root without --libvirt-uri: exit 2 ($code)" test "$code" -eq 2
check "  and it says why" grep -q -- "--libvirt-uri" "$work/noapply.txt"

set +e
"$bin" place --spec "$work/spec.yaml" --root "$tree" --apply --libvirt-uri "$uri" --state-dir "$state" -o "$out" >"$work/apply.txt" 2>&1
code=$?
set -e
cat "$work/apply.txt"
check "place --apply: exit 0 ($code)" test "$code" -eq 0
v dumpxml --inactive --security-info "$dom" >"$work/after.xml"
cat "$work/after.xml"

# The parser dbhost uses, run on what libvirt kept: a Go test reads both files.
check "the defined domain holds the fragments (libvirt/$dom.xml)" \
	env DBHOST_LIBVIRT_DOMAIN="$work/after.xml" DBHOST_LIBVIRT_FRAGMENTS="$out/libvirt/$dom.xml" \
	go test -count=1 -run '^TestSuiteDomainHoldsFragments$' ./internal/libvirt/
for keep in "dba team &amp; friends" "cache='none' io='native'" "passwd='s3cret'" "<model fallback='allow'>qemu64</model>" "database guest of the dbhost libvirt suite"; do
	check "the rest of the definition kept: $keep" grep -qF "$keep" "$work/after.xml"
done
check "the tree's pools grew ($pools_before → $(pool 0) $(pool 1))" test "$(pool 0) $(pool 1)" != "$pools_before"

# the fragments alone, pasted into a bare TCG guest, are a definition libvirt accepts
{
	echo "<domain type='qemu'><name>dbhost-suite-bare</name>"
	grep -v '^<!--\|^     ' "$out/libvirt/$dom.xml" | grep -v -- '-->$'
	echo "<os><type arch='x86_64' machine='pc'>hvm</type></os></domain>"
} >"$work/bare.xml"
check "libvirt defines a bare guest from the fragments file" v define "$work/bare.xml"
v undefine dbhost-suite-bare >/dev/null 2>&1 || true

check "verify: ok (exit 0)" "$bin" verify --root "$tree" --state-dir "$state"
# an outside edit (as virsh edit would): vCPU 0 floats over two CPUs
sed "s/<vcpupin vcpu='0' cpuset='[^']*'/<vcpupin vcpu='0' cpuset='0-1'/" "$work/after.xml" >"$work/edited.xml"
v define "$work/edited.xml" >/dev/null
set +e
"$bin" verify --root "$tree" --state-dir "$state" >"$work/verify-drift.txt" 2>&1
code=$?
set -e
cat "$work/verify-drift.txt"
check "verify after an outside edit of a vcpupin: drift, exit 3 ($code)" test "$code" -eq 3
check "  naming the vcpupin" grep -q "vcpupin" "$work/verify-drift.txt"

# applying again defines the placement again, then nothing is left to do
# (The tree's pools are not checked here: a tree's free_hugepages does not
# follow a write to nr_hugepages as the kernel's does.)
domain_status() { # the status of the domain's item in place --apply's JSON
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(i["status"] for i in d["apply"]["items"] if i["kind"]=="libvirt-domain"))' "$1"
}
"$bin" place --spec "$work/spec.yaml" --root "$tree" --apply --libvirt-uri "$uri" --state-dir "$state" --format json >"$work/apply2.json"
check "apply again: the domain redefined ($(domain_status "$work/apply2.json"))" test "$(domain_status "$work/apply2.json")" = applied
"$bin" place --spec "$work/spec.yaml" --root "$tree" --apply --libvirt-uri "$uri" --state-dir "$state" --format json >"$work/apply3.json"
check "apply a third time: the domain unchanged ($(domain_status "$work/apply3.json"))" test "$(domain_status "$work/apply3.json")" = unchanged

check "rollback (both journals): exit 0" "$bin" rollback --root "$tree" --state-dir "$state" --to "$(ls "$state/journal" | sed -n 's/\.jsonl$//p' | head -1)"
v dumpxml --inactive --security-info "$dom" >"$work/rolled.xml"
check "rollback: the definition is byte for byte the one before" cmp "$work/before.xml" "$work/rolled.xml"
check "rollback: the tree's pools are back ($(pool 0) $(pool 1))" test "$(pool 0) $(pool 1)" = "$pools_before"
"$bin" rollback --root "$tree" --state-dir "$state" --format json >"$work/rollback2.json" 2>&1 || true
check "rollback again: nothing restored" bash -c "! grep -q '\"status\": \"restored\"' '$work/rollback2.json'"

# kill -9 after every journal step of place --apply (a -tags testhooks
# build: DBHOST_TEST_KILL_AT), then rollback: the definition is byte for
# byte the one before, the pools are back, whatever step the kill hit.
hooks="$work/dbhost-hooks"
CGO_ENABLED=0 go build -tags testhooks -o "$hooks" ./cmd/dbhost
kills=0
for n in $(seq 1 60); do
	rm -rf "$tree" "$work/k"
	cp -a testdata/hosts/laptop-2s "$tree"
	v define "$work/before.xml" >/dev/null
	set +e
	DBHOST_TEST_KILL_AT=$n "$hooks" place --spec "$work/spec.yaml" --root "$tree" --apply --libvirt-uri "$uri" --state-dir "$work/k" >"$work/k.out" 2>&1
	code=$?
	"$hooks" rollback --root "$tree" --state-dir "$work/k" >"$work/k-rollback.out" 2>&1
	rcode=$?
	set -e
	v dumpxml --inactive --security-info "$dom" >"$work/k.xml"
	if ! cmp -s "$work/before.xml" "$work/k.xml" || [[ "$(pool 0) $(pool 1)" != "$pools_before" ]] || [[ $rcode -ne 0 ]]; then
		cat "$work/k.out" "$work/k-rollback.out"
		echo "FAILED: kill -9 after step $n (place exit $code), rollback exit $rcode: definition or pools not restored"
		fail=1
		break
	fi
	[[ $code -eq 0 ]] && break
	kills=$((kills + 1))
done
check "kill -9 after each of the $kills journal steps, then rollback: the definition and pools restored every time; run $((kills + 1)) went past its last step" test "$code" -eq 0

v undefine "$dom" >/dev/null
exit "$fail"
