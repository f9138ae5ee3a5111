# scripts/perf-work.sh: sourced by the scripts that record tracepoints with
# perf around a parkbench run (anatomy-check.sh, inversion-trace.sh).
#
#   perf_work NAME    checks root and perf (exit 2 with NAME's message),
#                     makes $work (removed on exit), traps INT/TERM to 130,
#                     mounts tracefs on /sys/kernel/tracing if it is not
#                     mounted (perf reads the events' ids there; unmounted
#                     on exit) and builds parkbench into $work/parkbench.
# perf record's events are file descriptors, gone when perf exits; nothing
# is written to tracefs.
perf_work() {
	local name=$1
	if [ "$(id -u)" != 0 ]; then
		echo "$name: needs root (perf record -a on tracepoints)" >&2
		exit 2
	fi
	command -v perf >/dev/null || { echo "$name: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
	work=$(mktemp -d)
	perf_work_mounted=
	trap perf_work_cleanup EXIT
	trap 'exit 130' INT TERM
	if [ ! -e /sys/kernel/tracing/events ]; then
		mount -t tracefs nodev /sys/kernel/tracing
		perf_work_mounted=1
	fi
	go build -o "$work/parkbench" ./cmd/parkbench
}

perf_work_cleanup() {
	rm -rf "$work"
	if [ -n "$perf_work_mounted" ]; then umount /sys/kernel/tracing || true; fi
}
