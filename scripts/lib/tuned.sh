# shellcheck shell=bash
# Start and stop Red Hat tuned 2.20 (Debian package) on a machine without
# systemd or a system bus, as ../shared/notes/tuned-2.20.md describes, and put
# everything back afterwards. Source this file, then:
#
#   tuned_up PROFILE      # starts a system bus if none runs, then `tuned -d -p PROFILE`;
#                         # returns 2 when no system bus can be started here, 1 when
#                         # tuned did not come up with the profile
#   tuned-adm verify ...  # works while it is up
#   tuned_down            # SIGTERM: tuned restores what it changed; bus stopped if ours;
#                         # /etc/tuned/active_profile and profile_mode restored
#   tuned_record F [SYSCTL...] / tuned_restore F
#                         # record the values tuned may touch (and what tuned does not
#                         # restore itself: kernel side effects), write back what differs
#
# tuned keeps the original values only in the daemon's memory, so tuned_down
# must always run: callers set `trap tuned_down EXIT`.

TUNED_STATE=""

tuned_available() {
	command -v tuned >/dev/null 2>&1 && command -v tuned-adm >/dev/null 2>&1 && command -v dbus-daemon >/dev/null 2>&1 &&
		command -v dbus-send >/dev/null 2>&1
}

# tuned_bus_answers: a system bus answers a call (the socket's existence
# proves nothing: an earlier bus may have left it behind).
tuned_bus_answers() {
	timeout 5 dbus-send --system --print-reply --dest=org.freedesktop.DBus \
		/org/freedesktop/DBus org.freedesktop.DBus.GetId >/dev/null 2>&1
}

tuned_up() {
	local profile=$1 i
	TUNED_STATE=$(mktemp -d "${TMPDIR:-/tmp}/dbhost-tuned.XXXXXX")
	for f in active_profile profile_mode post_loaded_profile; do
		if [[ -e /etc/tuned/$f ]]; then cp -p "/etc/tuned/$f" "$TUNED_STATE/$f.saved"; fi
	done
	if ! tuned_bus_answers; then
		# A socket (and pid file) left by a bus that is gone: dbus-daemon
		# refuses to start over its pid file, and tuned gets "Connection
		# refused". A bus whose daemon still runs but does not answer is not
		# ours to replace.
		local oldpid=""
		[[ -s /run/dbus/pid ]] && oldpid=$(cat /run/dbus/pid)
		if [[ -n "$oldpid" ]] && kill -0 "$oldpid" 2>/dev/null; then
			echo "no system bus: dbus-daemon (pid $oldpid) runs but does not answer on /run/dbus/system_bus_socket" >&2
			return 2
		fi
		if [[ -e /run/dbus/system_bus_socket || -e /run/dbus/pid ]]; then
			echo "note: removing a stale system bus socket/pid file (no bus answers there)" >&2
			rm -f /run/dbus/system_bus_socket /run/dbus/pid
		fi
		mkdir -p /run/dbus
		if ! dbus-daemon --system --fork --print-pid >"$TUNED_STATE/dbus.pid" 2>"$TUNED_STATE/dbus.err"; then
			echo "no system bus: dbus-daemon --system failed: $(head -1 "$TUNED_STATE/dbus.err")" >&2
			return 2
		fi
		for ((i = 0; i < 50; i++)); do tuned_bus_answers && break; sleep 0.1; done
		if ! tuned_bus_answers; then
			echo "no system bus: dbus-daemon --system started (pid $(cat "$TUNED_STATE/dbus.pid")) but does not answer" >&2
			return 2
		fi
	fi
	if ! tuned -d --log="$TUNED_STATE/tuned.log" --pid="$TUNED_STATE/tuned.pid" -p "$profile"; then
		echo "tuned -d -p $profile failed to start; its log:" >&2
		cat "$TUNED_STATE/tuned.log" >&2 || true
		return 1
	fi
	for ((i = 0; i < 100; i++)); do
		if tuned-adm active 2>/dev/null | grep -q "Current active profile: $profile"; then return 0; fi
		sleep 0.2
	done
	echo "tuned did not come up with profile $profile; its log:" >&2
	cat "$TUNED_STATE/tuned.log" >&2 || true
	return 1
}

tuned_log() { cat "$TUNED_STATE/tuned.log" 2>/dev/null; }

tuned_down() {
	[[ -n "$TUNED_STATE" && -d "$TUNED_STATE" ]] || return 0
	local pid i
	if [[ -s "$TUNED_STATE/tuned.pid" ]]; then
		pid=$(cat "$TUNED_STATE/tuned.pid")
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	if [[ -s "$TUNED_STATE/dbus.pid" ]]; then
		kill -TERM "$(cat "$TUNED_STATE/dbus.pid")" 2>/dev/null || true
		rm -f /run/dbus/system_bus_socket /run/dbus/pid
	fi
	for f in active_profile profile_mode post_loaded_profile; do
		if [[ -e "$TUNED_STATE/$f.saved" ]]; then cp -p "$TUNED_STATE/$f.saved" "/etc/tuned/$f"; fi
	done
	rm -rf "$TUNED_STATE"
	TUNED_STATE=""
}

# tuned_record FILE [SYSCTL...]: every value tuned (or dbhost apply) may touch,
# and the sysctls named, one "kind name<TAB>value" per line.
tuned_record() {
	local out=$1 k f
	shift
	: >"$out"
	for k in $(sysctl -N -a 2>/dev/null | grep -E '^(vm\.(swappiness|dirty_|min_free_kbytes|zone_reclaim_mode|stat_interval)|kernel\.(numa_balancing|sched_)|net\.core\.(rmem|wmem|busy_|somaxconn|netdev_)|net\.ipv4\.(tcp_[rw]mem|tcp_fastopen))' | sort) "$@"; do
		printf 'sysctl %s\t%s\n' "$k" "$(sysctl -n "$k" 2>/dev/null | tr -s ' \t' ' ')" >>"$out"
	done
	for f in /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag \
		/sys/block/*/queue/scheduler /sys/block/*/queue/read_ahead_kb /sys/block/*/queue/nr_requests \
		/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor /sys/devices/system/cpu/cpu*/power/energy_perf_bias; do
		[[ -r "$f" ]] && printf 'file %s\t%s\n' "$f" "$(cat "$f" 2>/dev/null)" >>"$out"
	done
	sort -u -o "$out" "$out"
}

# tuned_restore FILE: write back every value that differs from the recording.
tuned_restore() {
	local kind name val now
	while IFS=$'\t' read -r kn val; do
		kind=${kn%% *}; name=${kn#* }
		if [[ $kind == sysctl ]]; then
			now=$(sysctl -n "$name" 2>/dev/null | tr -s ' \t' ' ')
			[[ "$now" == "$val" ]] || sysctl -q -w "$name=$val" >/dev/null 2>&1 || true
		else
			now=$(cat "$name" 2>/dev/null)
			[[ "$now" == "$val" ]] && continue
			case $name in
			*/scheduler | */transparent_hugepage/*) val=$(sed -E 's/.*\[([^]]+)\].*/\1/' <<<"$val") ;;
			esac
			echo "$val" >"$name" 2>/dev/null || true
		fi
	done <"$1"
}
