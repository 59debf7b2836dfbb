# shellcheck shell=bash
# Timing helpers shared by the bench scripts. Source it after setting $work
# (a scratch directory): time_it writes its samples there.

# bench_runs DEFAULT HELP_END ARGS...: the -n RUNS option of the bench
# scripts (N from the environment, else DEFAULT): -h or an unknown option
# prints the script's header, lines 2..HELP_END, and exits 2; a count that is
# not a positive integer is exit 2 naming it. Sets N (and OPTIND).
bench_runs() {
	local def=$1 help=$2 opt
	shift 2
	N=${N:-$def}
	OPTIND=1
	while getopts "n:h" opt; do
		case $opt in
		n) N=$OPTARG ;;
		*) sed -n "2,${help}p" "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
		esac
	done
	[[ $N =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: -n expects a positive count, got '$N'" >&2; exit 2; }
}

# now_us prints a monotonic-enough wall clock in microseconds.
now_us() {
	local t=$EPOCHREALTIME
	echo $((10#${t%.*} * 1000000 + 10#${t#*.}))
}

# children_cpu_us prints the user+system CPU time of this shell's finished
# children (bash's `times`, second line), in microseconds. It runs in the
# current shell: a $(...) subshell would have children of its own.
children_cpu_us() {
	times >"$work/times"
	local line u s
	line=$(sed -n 2p "$work/times") # "0m0.123s 0m0.045s"
	u=${line% *} s=${line#* }
	echo $(($(dur_us "$u") + $(dur_us "$s")))
}
dur_us() { # "1m2.345s" -> microseconds
	local d=${1%s} m sec frac
	m=${d%%m*} sec=${d#*m}
	frac=${sec#*.} sec=${sec%.*}
	frac=${frac}000000
	echo $(((10#$m * 60 + 10#$sec) * 1000000 + 10#${frac:0:6}))
}

# time_it NAME CMD...: appends the wall and CPU microseconds of one run.
time_it() {
	local name=$1 t0 t1 c0 c1
	shift
	children_cpu_us >"$work/c0"
	t0=$(now_us)
	"$@" </dev/null >/dev/null 2>&1 || true
	t1=$(now_us)
	children_cpu_us >"$work/c1"
	read -r c0 <"$work/c0"
	read -r c1 <"$work/c1"
	echo $((t1 - t0)) >>"$work/$name.us"
	echo $((c1 - c0)) >>"$work/$name.cpu"
}

median_ms() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f", m / 1000 }'
}
range_ms() {
	sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo / 1000, hi / 1000 }'
}
