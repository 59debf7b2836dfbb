#!/usr/bin/env bash
# scripts/release end to end: the artifacts built twice from this commit are
# byte-identical (SHA256SUMS equal); the tarballs hold what they should; the
# binaries are static; the .rpm's file list is checked with rpm -qpl; the
# .deb of this machine's architecture is installed with dpkg -i, its
# `dbhost version` and `man dbhost` run, the exporter unit's command line is
# started by hand (on a fixture tree, an ephemeral loopback port) and scraped,
# and the package is removed again (dpkg --purge), leaving nothing behind.
# Exit 0 passed, 77 skipped with the reason (scripts/lib/suite.sh), else failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/suite.sh
source scripts/lib/suite.sh
for c in dpkg-deb rpmbuild rpm man python3; do
	command -v "$c" >/dev/null || suite_skip "$c not installed (scripts/packages.txt: dpkg, rpm, man-db, python3)"
done
[[ $(id -u) -eq 0 ]] || suite_skip "not root: dpkg -i of the package needs root"
if dpkg-query -W -f '${Status}' dbhost 2>/dev/null | grep -q installed; then
	echo "FAIL: a dbhost package is installed on this machine already; the suite will not replace or remove it"
	exit 1
fi
if [[ -e /usr/bin/dbhost ]]; then
	echo "FAIL: /usr/bin/dbhost exists and belongs to no package; the suite will not overwrite it"
	exit 1
fi
work=$(mktemp -d /tmp/dbhost-release.XXXXXX)
installed=0
cleanup() {
	if [[ $installed == 1 ]]; then dpkg --purge dbhost >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

scripts/release -o "$work/a" >"$work/a.log" 2>&1 || { cat "$work/a.log"; fail "scripts/release"; }
scripts/release -o "$work/b" >"$work/b.log" 2>&1 || { cat "$work/b.log"; fail "scripts/release (second run)"; }
cat "$work/a/SHA256SUMS"
if ! cmp -s "$work/a/SHA256SUMS" "$work/b/SHA256SUMS"; then
	diff "$work/a/SHA256SUMS" "$work/b/SHA256SUMS" || true
	fail "two builds of one commit differ: not reproducible"
fi
echo "reproducible: two builds of this commit are byte-identical ($(wc -l <"$work/a/SHA256SUMS") files)"
(cd "$work/a" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match the files"

version=$(sed -n 's/^dbhost \(v[^ ]*\) .*/\1/p' "$work/a.log" | head -1)
[[ -n $version ]] || fail "scripts/release did not say its version"
for t in linux-amd64 linux-arm64 linux-ppc64le aix-ppc64; do
	tgz=$work/a/dbhost-$version-$t.tar.gz
	[[ -f $tgz ]] || fail "missing $tgz"
	list=$(tar -tzf "$tgz")
	for f in dbhost README.md LICENSE THIRD_PARTY_NOTICES man/man1/dbhost.1 man/man1/dbhost-audit.1 completions/dbhost.bash completions/_dbhost completions/dbhost.fish; do
		grep -qx "dbhost-$version-$t/$f" <<<"$list" || fail "$t tarball lacks $f"
	done
	if [[ $t == linux-* ]]; then
		grep -qx "dbhost-$version-$t/systemd/dbhost-exporter.service" <<<"$list" || fail "$t tarball lacks the exporter unit"
	fi
	tar -xzf "$tgz" -C "$work" "dbhost-$version-$t/dbhost"
	if [[ $t == linux-* ]] && readelf -lW "$work/dbhost-$version-$t/dbhost" | grep -q INTERP; then
		fail "$t binary is dynamically linked"
	fi
done
echo "tarballs: binary, docs, man pages, completions, unit; static binaries"

arch=$(dpkg --print-architecture)
rpm_arch=$(case $arch in amd64) echo x86_64 ;; arm64) echo aarch64 ;; ppc64el) echo ppc64le ;; *) echo "$arch" ;; esac)
rpmf=$(ls "$work"/a/dbhost-*."$rpm_arch".rpm 2>/dev/null | head -1)
[[ -n $rpmf ]] || fail "no .rpm for $rpm_arch"
rpm -qpl "$rpmf" >"$work/rpm.list" 2>/dev/null || fail "rpm -qpl $rpmf"
for f in /usr/bin/dbhost /usr/share/man/man1/dbhost.1.gz /usr/lib/systemd/system/dbhost-exporter.service \
	/usr/share/bash-completion/completions/dbhost /etc/sysconfig/dbhost-exporter /usr/share/doc/dbhost/LICENSE; do
	grep -qx "$f" "$work/rpm.list" || fail "the rpm lacks $f"
done
echo "rpm -qpl: $(wc -l <"$work/rpm.list") files, $(rpm -qp --qf '%{NAME} %{VERSION}-%{RELEASE} %{ARCH}' "$rpmf" 2>/dev/null)"

deb=$(ls "$work"/a/dbhost_*_"$arch".deb 2>/dev/null | head -1)
[[ -n $deb ]] || fail "no .deb for $arch"
installed=1
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i $deb"; }
got=$(dbhost version | head -1)
[[ $got == "dbhost $version" ]] || fail "installed dbhost version says '$got', want 'dbhost $version'"
man -w dbhost >/dev/null 2>&1 || fail "man -w dbhost: the page is not installed where man looks"
MANWIDTH=80 man dbhost-audit 2>/dev/null | grep -q "dbhost-audit - " || fail "man dbhost-audit does not render"
[[ -f /lib/systemd/system/dbhost-exporter.service || -f /usr/lib/systemd/system/dbhost-exporter.service ]] || fail "the exporter unit is not installed"
unit=$(ls /lib/systemd/system/dbhost-exporter.service /usr/lib/systemd/system/dbhost-exporter.service 2>/dev/null | head -1)
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify --man=no "$unit" || fail "systemd-analyze verify $unit"
fi
if [[ -d /run/systemd/system ]] && systemctl is-enabled dbhost-exporter.service >/dev/null 2>&1; then
	fail "the package enabled the exporter unit"
fi
# The unit's command line, run by hand as systemd would (its own options
# from DBHOST_EXPORTER_ARGS): on a fixture tree and an ephemeral port.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DBHOST_EXPORTER_ARGS="--root $(pwd)/testdata/hosts/interleaved-4n --listen 127.0.0.1:$port"
cmd=${exec_start//\$DBHOST_EXPORTER_ARGS/$DBHOST_EXPORTER_ARGS}
# shellcheck disable=SC2086
$cmd >"$work/exporter.log" 2>&1 &
pid=$!
ok=0
for _ in $(seq 1 100); do
	if python3 - "$port" >"$work/metrics" 2>/dev/null <<'PY'; then ok=1; break; fi
import sys, urllib.request
print(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=2).read().decode())
PY
	sleep 0.2
done
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[[ $ok == 1 ]] || { cat "$work/exporter.log"; fail "the unit's command line ($cmd) served no /metrics"; }
grep -q "^dbhost_build_info{goversion=\"[^\"]*\",revision=\"\",version=\"$version\"} 1" "$work/metrics" || fail "dbhost_build_info does not name $version"
echo "installed: dbhost version, man dbhost, the unit's command line served /metrics ($(grep -c '^dbhost_' "$work/metrics") series)"
dpkg --purge dbhost >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --purge dbhost"; }
installed=0
for f in /usr/bin/dbhost "$unit" /usr/share/man/man1/dbhost.1.gz /etc/default/dbhost-exporter; do
	[[ ! -e $f ]] || fail "$f left behind after dpkg --purge"
done
echo "removed: nothing left behind"
