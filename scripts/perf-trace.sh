#!/usr/bin/env bash
# scripts/perf-trace.sh: a parkbench run recorded with `perf record -a` on
# the kernel's tracepoints and read with `perf script` and awk, a reading
# that shares no code with parkbench. Root.
#
#   scripts/perf-trace.sh anatomy [ITERATIONS] [ROUNDS]            (default 10000, 3)
#   scripts/perf-trace.sh inversion [REPEATS] [THRESHOLD_US] [IMPLS]
#                                             (default 300, 250, pi-futex,pthread-pi)
#   scripts/perf-trace.sh --smoke             both on their smallest case, seconds (.ci/run)
#
# anatomy: an independent check of latency --anatomy's idle_exit
#   (docs/anatomy.md, "Independent check").
#   1. Runs `parkbench latency --impl=c-futex --placement=cross-core` (no
#      --anatomy) under `perf record -e sched:sched_waking,sched:sched_switch,
#      power:cpu_idle,ipi:ipi_send_cpu -a` and reads `perf script --ns` with
#      awk: for every sched_waking of a parkbench thread by a parkbench
#      thread whose target CPU sat in an idle state (its last
#      power:cpu_idle entered a state and has not left it), the time to that
#      CPU's next cpu_idle exit (state 4294967295). That is --anatomy's
#      idle_exit, measured by perf's own recording.
#   2. Runs the same configuration with --anatomy and reads its pooled
#      anatomy_idle_exit_median_ns.
#   Prints both medians, with the number of wakes whose target CPU was idle
#   / busy, the CPU and the load. On a loaded machine (both CPUs busy) few
#   or no wakes find their CPU idle and both medians say so. Needs jq.
# inversion: what happens on the measured CPU while low, boosted by
#   priority inheritance, holds the lock (docs/experiments.md, inversion,
#   "The Go runtime in the way"). Runs `parkbench inversion --impl=IMPLS
#   --repeats=REPEATS` under `perf record -a` on sched_switch, sched_wakeup,
#   sched_pi_setprio, page_fault_user, irq_handler_entry, softirq_entry and
#   local_timer_entry: a boosted section is the time from a
#   sched_pi_setprio that raises a thread (low, when high blocks on the PI
#   lock) to the one that puts it back (its FUTEX_UNLOCK_PI). Prints, per
#   boosted thread, the count, median and p99 of those sections, then every
#   section longer than THRESHOLD_US with the events of its CPU in between:
#   a sched_switch away from the boosted thread with prev_state=S is a
#   sleep inside the section (the Go runtime's, before the fix of the arm
#   phase); nothing at all is the host taking the vCPU (steal). parkbench
#   inversion itself puts every thread back to SCHED_OTHER on any exit (130
#   on interrupt).
#
# Both: mounts tracefs on /sys/kernel/tracing if it is not mounted (perf
# reads the events' ids there) and unmounts it on exit; perf record's events
# are file descriptors, gone when perf exits; nothing is written to tracefs.
# Needs root and perf (apt-get install linux-perf).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# perf_work NAME: checks root and perf (exit 2 with NAME's message), makes
# $work (removed on exit), traps INT/TERM to 130, mounts tracefs when it is
# not mounted (unmounted on exit) and builds parkbench into $work/parkbench.
work=
perf_work_mounted=
perf_work() {
	local name=$1
	if [ "$(id -u)" != 0 ]; then
		echo "$name: needs root (perf record -a on tracepoints)" >&2
		exit 2
	fi
	command -v perf >/dev/null || { echo "$name: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
	[ -z "$work" ] || return 0
	work=$(mktemp -d)
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

anatomy() { # [ITERATIONS] [ROUNDS]
	local iters=${1:-10000} rounds=${2:-3} pidle pbusy cfg
	case "$iters$rounds" in '' | *[!0-9]*) echo "perf-trace anatomy: ITERATIONS and ROUNDS are whole numbers" >&2; exit 2 ;; esac
	command -v jq >/dev/null || { echo "perf-trace anatomy: jq is not installed (apt-get install jq)" >&2; exit 2; }
	perf_work "perf-trace anatomy"
	cfg=(latency --impl=c-futex --placement=cross-core --iterations="$iters" --rounds="$rounds" --quiet)

	echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	perf record -q -e sched:sched_waking,sched:sched_switch,power:cpu_idle,ipi:ipi_send_cpu -a -o "$work/perf.data" -- \
		"$work/parkbench" "${cfg[@]}" -o "$work/plain.json" >/dev/null
	perf script --ns -i "$work/perf.data" -F comm,tid,cpu,time,event,trace 2>/dev/null | awk -v out="$work/idle_exit.txt" '
		function field(name,   i, kv) {
			for (i = ev + 1; i <= NF; i++) if (index($i, name "=") == 1) { kv = substr($i, length(name) + 2); return kv }
			return ""
		}
		{
			for (c = 1; c <= NF; c++) if ($c ~ /^\[[0-9]+\]$/) break
			if (c > NF) next
			cpu = substr($c, 2, length($c) - 2) + 0
			t = $(c + 1); sub(/:$/, "", t)
			ev = c + 2
			comm = $1
			if ($ev == "power:cpu_idle:") {
				st = field("state"); id = field("cpu_id") + 0
				if (st == "4294967295") {
					if (id in pend) { printf "%.0f\n", (t - pend[id]) * 1e9 > out; delete pend[id] }
					idle[id] = 0
				} else idle[id] = 1
			} else if ($ev == "sched:sched_waking:") {
				if (comm != "parkbench" || field("comm") != "parkbench") next
				tc = field("target_cpu") + 0
				if (idle[tc]) { pend[tc] = t; nidle++ } else nbusy++
			}
		}
		END { printf "%d %d\n", nidle, nbusy }' >"$work/counts.txt"
	read -r pidle pbusy <"$work/counts.txt"
	median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR == 0) print "none"; else printf "%.1f µs", v[int((NR + 1) / 2)] / 1000 }'; }
	touch "$work/idle_exit.txt"
	echo "perf record + perf script (sched_waking -> cpu_idle exit of the target CPU; median over the wakes whose CPU was idle), c-futex cross-core:"
	echo "  idle_exit median $(median "$work/idle_exit.txt") over $(wc -l <"$work/idle_exit.txt") wakes (target CPU idle at $pidle wakes, busy at $pbusy)"

	"$work/parkbench" "${cfg[@]}" --anatomy -o "$work/anat.json" >/dev/null
	jq -r '.experiments[0].configs[] | select(.impl == "c-futex") | .summary |
		"parkbench latency --anatomy (median over decomposed wakes: a busy CPU counts 0), c-futex cross-core:\n  idle_exit median " +
		(if .anatomy_idle_exit_median_ns then ((.anatomy_idle_exit_median_ns / 100 | round) / 10 | tostring) + " µs" else "none" end) +
		" (idle wakes \(.anatomy_idle_wakes // 0), busy \(.anatomy_busy_wakes // 0), flagged \(.anatomy_flagged_wakes // 0)); probe effect " +
		(if .anatomy_probe_effect then ((.anatomy_probe_effect * 1000 | round) / 10 | tostring) + "%" else "-" end)' "$work/anat.json"
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

inversion() { # [REPEATS] [THRESHOLD_US] [IMPLS]
	local repeats=${1:-300} threshold_us=${2:-250} impls=${3:-pi-futex,pthread-pi} events
	case "$repeats$threshold_us" in '' | *[!0-9]*)
		echo "perf-trace inversion: REPEATS and THRESHOLD_US are whole numbers" >&2; exit 2 ;;
	esac
	perf_work "perf-trace inversion"

	echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	events=sched:sched_switch,sched:sched_wakeup,sched:sched_pi_setprio,exceptions:page_fault_user,irq:irq_handler_entry,irq:softirq_entry
	if perf list 2>/dev/null | grep -q 'irq_vectors:local_timer_entry'; then events+=,irq_vectors:local_timer_entry; fi
	perf record -q -e "$events" -a -o "$work/perf.data" -- \
		"$work/parkbench" inversion --impl="$impls" --repeats="$repeats" -o "$work/inversion.json" >"$work/inversion.txt"
	grep -E '^│|claim inversion-pi-bounded|why:' "$work/inversion.txt" || true
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
	perf script --ns -i "$work/perf.data" 2>/dev/null | awk -v thr="$threshold_us" '
		function val(name,   i) {
			for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
			return ""
		}
		{
			cpu = ""; t = ""
			for (c = 1; c <= NF; c++) if ($c ~ /^\[[0-9]+\]$/) { cpu = substr($c, 2, length($c) - 2); t = $(c + 1); sub(/:$/, "", t); break }
			if (cpu == "") next
			line = $0
			if (index(line, "sched_pi_setprio:")) {
				pid = val("pid"); o = val("oldprio") + 0; n = val("newprio") + 0
				if (n < o && !(pid in start)) { start[pid] = t; scpu[pid] = cpu; buf[pid] = line "\n"; next }
				if (n > o && (pid in start)) {
					d = (t - start[pid]) * 1e6
					cnt[pid]++; durs[pid, cnt[pid]] = d
					if (d > thr) printf "==== %s boosted for %.0f us on CPU %s\n%s%s\n", pid, d, scpu[pid], buf[pid], line >"/dev/stderr"
					delete start[pid]; delete buf[pid]
					next
				}
			}
			for (p in start) if (cpu == scpu[p]) buf[p] = buf[p] line "\n"
		}
		END {
			for (p in cnt) {
				n = cnt[p]
				for (i = 1; i <= n; i++) v[i] = durs[p, i]
				for (i = 2; i <= n; i++) { x = v[i]; j = i - 1; while (j > 0 && v[j] > x) { v[j + 1] = v[j]; j-- } v[j + 1] = x }
				m = v[int((n + 1) / 2)]; q = v[int(n * 0.99 + 0.999)]
				printf "thread %s: %d boosted sections, median %.0f us, p99 %.0f us, max %.0f us\n", p, n, m, q, v[n]
			}
		}' 2>&1
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
cmd=$1
shift
case $cmd in
anatomy | inversion) "$cmd" "$@" ;;
--smoke)
	[ $# = 0 ] || { echo "perf-trace: --smoke takes no arguments" >&2; exit 2; }
	t0=$SECONDS
	echo "== perf-trace.sh anatomy 2000 1"
	anatomy 2000 1
	echo "== perf-trace.sh inversion 20"
	inversion 20
	echo "perf-trace.sh --smoke: ok ($((SECONDS - t0))s)"
	;;
-h | --help) usage ;;
*) echo "perf-trace: unknown subcommand '$cmd' (anatomy, inversion, --smoke)" >&2; exit 2 ;;
esac
