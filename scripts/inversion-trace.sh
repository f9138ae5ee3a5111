#!/usr/bin/env bash
# scripts/inversion-trace.sh: what happens on the measured CPU while low,
# boosted by priority inheritance, holds the lock (docs/experiments.md,
# inversion, "The Go runtime in the way").
#
#   scripts/inversion-trace.sh [REPEATS] [THRESHOLD_US] [IMPLS]
#       (default 300, 250, pi-futex,pthread-pi; root)
#
# Runs `parkbench inversion --impl=IMPLS --repeats=REPEATS` under
# `perf record -a` on sched_switch, sched_wakeup, sched_pi_setprio,
# page_fault_user, irq_handler_entry, softirq_entry and local_timer_entry,
# and reads `perf script` with awk: a boosted section is the time from a
# sched_pi_setprio that raises a thread (low, when high blocks on the PI
# lock) to the one that puts it back (its FUTEX_UNLOCK_PI). Prints, per
# boosted thread, the count, median and p99 of those sections, then every
# section longer than THRESHOLD_US with the events of its CPU in between:
# a sched_switch away from the boosted thread with prev_state=S is a sleep
# inside the section (the Go runtime's, before the fix of the arm phase);
# nothing at all is the host taking the vCPU (steal).
#
# Root; tracefs and the work directory as scripts/perf-work.sh says.
# parkbench inversion itself puts every thread back to SCHED_OTHER on any
# exit (130 on interrupt).
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=${1:-300}
threshold_us=${2:-250}
impls=${3:-pi-futex,pthread-pi}
case "$repeats$threshold_us" in *[!0-9]*)
	echo "inversion-trace: REPEATS and THRESHOLD_US are whole numbers" >&2; exit 2 ;;
esac
# shellcheck source=scripts/perf-work.sh
. scripts/perf-work.sh
perf_work inversion-trace

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
