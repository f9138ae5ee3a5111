#!/usr/bin/env bash
# scripts/anatomy-check.sh: an independent check of latency --anatomy's
# idle_exit (docs/anatomy.md, "Independent check").
#
#   scripts/anatomy-check.sh [ITERATIONS] [ROUNDS]     (default 10000, 3; root)
#
# 1. Runs `parkbench latency --impl=c-futex --placement=cross-core` (no
#    --anatomy) under `perf record -e sched:sched_waking,sched:sched_switch,
#    power:cpu_idle,ipi:ipi_send_cpu -a` and reads `perf script --ns` with
#    awk: for every sched_waking of a parkbench thread by a parkbench thread
#    whose target CPU sat in an idle state (its last power:cpu_idle entered
#    a state and has not left it), the time to that CPU's next cpu_idle exit
#    (state 4294967295). That is --anatomy's idle_exit, measured by perf's
#    own recording and a reading that shares no code with parkbench.
# 2. Runs the same configuration with --anatomy and reads its pooled
#    anatomy_idle_exit_median_ns.
# Prints both medians, with the number of wakes whose target CPU was idle /
# busy, the CPU and the load. On a loaded machine (both CPUs busy) few or
# no wakes find their CPU idle and both medians say so.
#
# Mounts tracefs on /sys/kernel/tracing if it is not mounted (perf reads
# the events' ids there) and unmounts it on exit; perf record's events are
# file descriptors, gone when perf exits; nothing is written to tracefs.
set -euo pipefail
cd "$(dirname "$0")/.."
iters=${1:-10000}
rounds=${2:-3}
command -v jq >/dev/null || { echo "anatomy-check: jq is not installed (apt-get install jq)" >&2; exit 2; }
# shellcheck source=scripts/perf-work.sh
. scripts/perf-work.sh
perf_work anatomy-check
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
