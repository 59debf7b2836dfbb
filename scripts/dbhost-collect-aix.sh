#!/bin/sh
# dbhost-collect-aix.sh: collect an AIX host's facts for dbhost (docs/aix.md).
#
#   sh dbhost-collect-aix.sh -o db1.aixbundle.tar.gz    (or -o DIR, or -o FILE.tar)
#   dbhost audit --aix-bundle db1.aixbundle.tar.gz [--artifact alert_ORCL.log ...]
#
# Runs only the read-only commands listed below ("the commands": the same
# list dbhost runs itself on an AIX host) and writes their output to
# commands/NAME (NAME: the command line, spaces replaced by "_") and a meta
# file naming the host, the date and every command that was missing or
# failed. A missing or failing command is recorded, never fatal. Nothing is
# changed on the host; the only files written are the bundle's (and a
# temporary directory for an archive, removed at the end).
#
# POSIX sh (AIX's ksh, bash, dash); no package to install. Run it as root:
# some commands (svmon, fcstat) show less, or nothing, to other users, which
# the bundle records.

VERSION=2
PROG=dbhost-collect-aix.sh

usage() {
	cat <<EOF
usage: sh $PROG -o OUTPUT [-t SECONDS] [-e ENVFILE]

  -o OUTPUT   the bundle: FILE.tar.gz (or .tgz), FILE.tar, or a directory
              (created; an existing one must be empty). An existing file is
              never overwritten.
  -t SECONDS  stop a command that runs longer (default 300; 0: no limit).
              fcstat waits on an adapter whose link is down.
  -e ENVFILE  where the system TZ is read (default /etc/environment).

Alert logs are not collected: pass them to dbhost audit with --artifact.
EOF
}

die() {
	echo "$PROG: $*" >&2
	exit 2
}

out=""
limit=300
envfile=/etc/environment
while getopts o:t:e:h opt; do
	case $opt in
	o) out=$OPTARG ;;
	t) limit=$OPTARG ;;
	e) envfile=$OPTARG ;;
	h)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || die "unexpected argument: $1 (see -h)"
case $out in
"" | *[![:print:]]*) die "-o OUTPUT is required (a .tar.gz, a .tar, or a directory); an empty path is never a default" ;;
esac
case $limit in
"" | *[!0-9]*) die "-t $limit: expected a number of seconds" ;;
esac

# The AIX commands live in /usr/sbin, /usr/bin and /etc; a PATH that lacks
# them (cron, su) would report them missing. Appended: what the user's PATH
# finds first still wins.
PATH=$PATH:/usr/bin:/usr/sbin:/etc:/sbin:/bin
export PATH
# C locale: the labels dbhost reads are the English ones.
LANG=C
LC_ALL=C
export LANG LC_ALL
umask 077

case $out in
*.tar.gz | *.tgz) kind=tgz ;;
*.tar) kind=tar ;;
*) kind=dir ;;
esac

tmp=""
# shellcheck disable=SC2317 # called by the traps
cleanup() {
	if [ -n "$tmp" ] && [ -d "$tmp" ]; then
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

if [ "$kind" = dir ]; then
	if [ -e "$out" ] && [ ! -d "$out" ]; then
		die "-o $out: exists and is not a directory"
	fi
	if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
		die "-o $out: the directory is not empty (dbhost never writes among files it did not write)"
	fi
	mkdir -p "$out" || die "-o $out: cannot create the directory"
	bundle=$out
else
	[ -e "$out" ] && die "-o $out: exists; remove it or choose another name"
	outdir=$(dirname "$out")
	if [ ! -d "$outdir" ] || [ ! -w "$outdir" ]; then
		die "-o $out: cannot write in $outdir"
	fi
	base=${TMPDIR:-/tmp}
	tmp=$(mktemp -d "$base/dbhost-aix.XXXXXX" 2>/dev/null) || {
		tmp=$base/dbhost-aix.$$
		mkdir "$tmp" || die "cannot create a temporary directory in $base"
	}
	name=$(basename "$out")
	name=${name%.tar.gz}
	name=${name%.tgz}
	name=${name%.tar}
	bundle=$tmp/$name
	mkdir "$bundle" || die "cannot create $bundle"
fi
mkdir "$bundle/commands" || die "cannot create $bundle/commands"
meta=$bundle/meta

# The meta file's header.
{
	echo "format: dbhost-aix-bundle 1"
	echo "collector: $PROG $VERSION"
	echo "hostname: $(hostname 2>/dev/null || uname -n)"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "user: $(id -un 2>/dev/null || echo unknown)"
	if [ -r "$envfile" ]; then
		tz=$(sed -n 's/^[[:space:]]*TZ[[:space:]]*=[[:space:]]*//p' "$envfile" | tail -n 1 | tr -d '"'"'")
		echo "tz: $tz"
	fi
} >"$meta"

# run CMD ARGS...: its output to commands/NAME, its outcome to meta.
run() {
	cmdline=$*
	file=$bundle/commands/$(printf '%s' "$cmdline" | tr ' /' '_.')
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "missing: $cmdline (exit 127)" >>"$meta"
		return 127
	fi
	if [ "$limit" -eq 0 ]; then
		"$@" >"$file" 2>&1 </dev/null
		rc=$?
	else
		"$@" >"$file" 2>&1 </dev/null &
		pid=$!
		waited=0
		stopped=0
		while kill -0 "$pid" 2>/dev/null; do
			if [ "$waited" -ge "$limit" ]; then
				stopped=1
				kill "$pid" 2>/dev/null
				sleep 1
				kill -9 "$pid" 2>/dev/null
				break
			fi
			sleep 1
			waited=$((waited + 1))
		done
		wait "$pid"
		rc=$?
		if [ "$stopped" -eq 1 ]; then
			echo "stopped after $limit s (the per-command time limit)" >>"$file"
			rc=124
		fi
	fi
	if [ "$rc" -eq 0 ]; then
		echo "ran: $cmdline" >>"$meta"
	else
		echo "failed: $cmdline (exit $rc)" >>"$meta"
	fi
	return "$rc"
}

# devices NAME-PATTERN FILE: the device names of an lsdev listing.
devices() {
	[ -f "$2" ] || return 0
	awk -v re="$1" '$1 ~ re { print $1 }' "$2"
}

# --- the commands: generated from internal/facts/aix/commands.go (go test ./internal/hostsrc -run CollectorScriptCommands -update); do not edit ---
run oslevel -s
run prtconf
run lparstat -i
run lssrad -av
run smtctl
run dscrctl -q
run lsdev -Cc disk
for d in $(devices '^hdisk[0-9]+$' "$bundle/commands/lsdev_-Cc_disk"); do
	run lsattr -El "$d"
done
run lspath
run iostat -D 2 3
run lsdev -Cc adapter
for a in $(devices '^fcs[0-9]+$' "$bundle/commands/lsdev_-Cc_adapter"); do
	run lsattr -El "$a"
	run fcstat -e "$a"
done
run ioo -a
run ioo -F -a
run vmo -a
run vmo -F -a
run schedo -a
run no -a
run lsattr -El sys0
run lsattr -El aio0
run mount
run lsfs -q
run lsps -a
run svmon -G
run vmstat -v
run lsuser -a capabilities oracle
run lsrset -av
run ps -ef
run lssrc -ls clstrmgrES
# --- end of the commands ---

case $kind in
dir) ;;
tar)
	(cd "$tmp" && tar -cf - "$name") >"$out" || die "cannot write $out"
	;;
tgz)
	command -v gzip >/dev/null 2>&1 || die "gzip not found: use -o FILE.tar or -o DIR"
	(cd "$tmp" && tar -cf - "$name") | gzip -c >"$out" || die "cannot write $out"
	;;
esac
missing=$(grep -c '^missing:' "$meta")
failed=$(grep -c '^failed:' "$meta")
echo "$PROG: wrote $out ($missing command(s) missing, $failed failed: see meta)" >&2
exit 0
