#!/usr/bin/env bash
# peer-perf.sh: perf bench futex beside parkbench wake --impl=futex.
#
# Runs `perf bench futex wake / wake-parallel / requeue / hash` and
# `parkbench wake --impl=futex` with the same parameters, interleaved
# (perf, parkbench, perf, parkbench, ... bench by bench, trial by trial, so
# that a change in the machine's load hits both), reads the summary line
# each prints (parkbench's --format=perf prints perf's own lines: per run
# and per summary), and prints per bench each tool's median over the trials
# and the median of the per-trial ratios parkbench / perf (the trials are
# paired: a ratio within one trial compares runs made seconds apart). A
# trial's figure for wake, wake-parallel and requeue is the median of its
# runs, not perf's mean (see figure below). The target is a ratio
# within 1.15x either way on each bench; --strict exits 1 when one is
# outside it (CI runs it without: noise alone must not fail a build).
#
# wake and requeue are also run as --impl=c-futex: perf's loop in C threads
# whose waiters exit once woken, as perf's do, where parkbench's Go waiters
# go back to sleep until the run is over. The difference between the two
# columns is what the woken waiters' exit adds to the waker's time when a
# waiter pinned to the waker's CPU preempts it (docs/experiments.md,
# "parkbench wake", says what each tool times).
#
# Usage: scripts/peer-perf.sh [--parkbench BIN] [--trials N] [--runs N]
#                             [--threads N] [--hash-secs N] [--strict]
# Defaults: 3 trials, perf's defaults otherwise (10 runs, -t = online CPUs,
# one wake or requeue per call, as many parallel wakers as threads), hash
# for 1 s. About 35 s on two vCPUs.
set -euo pipefail
cd "$(dirname "$0")/.."

pb="" trials=3 runs=10 threads=$(nproc) hashsecs=1 strict=0
while [ $# -gt 0 ]; do
  case "$1" in
    --parkbench) pb=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --hash-secs) hashsecs=$2; shift 2 ;;
    --strict) strict=1; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "peer-perf: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for v in "$trials" "$runs" "$threads" "$hashsecs"; do
  case "$v" in ''|*[!0-9]*|0) echo "peer-perf: counts must be whole numbers above 0 (got '$v')" >&2; exit 2 ;; esac
done

if ! command -v perf >/dev/null 2>&1 || ! perf bench futex wake -t 1 -s >/dev/null 2>&1; then
  echo "peer-perf: perf bench futex does not run here (Debian: apt-get install linux-perf); nothing compared"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$pb" ]; then
  go build -o "$tmp/parkbench" ./cmd/parkbench
  pb=$tmp/parkbench
fi

# perf's arguments and parkbench's, per bench.
perfargs() {
  case "$1" in
    wake) echo "-r $runs futex wake -t $threads -w 1" ;;
    wake-parallel) echo "-r $runs futex wake-parallel -t $threads -w $threads" ;;
    requeue) echo "-r $runs futex requeue -t $threads -q 1" ;;
    hash) echo "futex hash -t $threads -r $hashsecs -f 1024" ;;
  esac
}
pbargs() { # bench impl
  local common="wake --impl=$2 --quiet --format=perf --threads=$threads --runs=$runs --settle=100ms"
  case "$1" in
    wake) echo "$common --bench=wake --wakes=1" ;;
    wake-parallel) echo "$common --bench=wake-parallel --wakers=$threads" ;;
    requeue) echo "$common --bench=requeue --requeues=1" ;;
    hash) echo "$common --bench=hash --hash-threads=$threads --hash-time=${hashsecs}s --hash-rounds=1 --futexes=1024" ;;
  esac
}
# figure prints the bench's figure from a perf-format output: for the
# three wake benches the median of the "[Run n]" lines' times in ms (perf
# prints each run; its own summary is their mean, which one slow run out of
# ten moves by a factor here, so the script reads the runs), for hash the
# "Averaged" operations/s per thread (one run).
figure() {
  case "$1" in
    wake|wake-parallel|requeue) awk '
      /^\[Run [0-9]+\]: / { for (i = 1; i <= NF; i++) if ($i == "ms") v[++n] = $(i-1) }
      END {
        if (n == 0) exit
        for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j+1] = v[j]; v[j+1] = x }
        print (n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2)
      }' ;;
    hash) awk '/^Averaged [0-9]+ operations\/sec/ { v=$2 } END { print v }' ;;
  esac
}
# measure runs one tool and records its figure: measure TOOL BENCH TRIAL CMD...
measure() {
  local tool=$1 b=$2 t=$3; shift 3
  if ! "$@" > "$tmp/out" 2> "$tmp/err"; then
    echo "peer-perf: $* failed:"; cat "$tmp/out" "$tmp/err"; exit 1
  fi
  local v
  v=$(figure "$b" < "$tmp/out")
  if [ -z "$v" ]; then echo "peer-perf: no summary line in the output of $*:"; cat "$tmp/out"; exit 1; fi
  echo "$b $tool $t $v" >> "$tmp/figures"
}

benches="wake wake-parallel requeue hash"
echo "peer-perf: $(perf --version), parkbench $("$pb" --version 2>/dev/null | head -1)"
echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs, kernel $(uname -r)"
echo "load before: $(uptime)"
t0=$(date +%s)
for t in $(seq "$trials"); do
  for b in $benches; do
    # shellcheck disable=SC2046
    measure perf "$b" "$t" perf bench $(perfargs "$b")
    # shellcheck disable=SC2046
    measure futex "$b" "$t" "$pb" $(pbargs "$b" futex)
    case "$b" in wake|requeue)
      # shellcheck disable=SC2046
      measure c-futex "$b" "$t" "$pb" $(pbargs "$b" c-futex) ;;
    esac
  done
done
echo "load after:  $(uptime)"
echo "time: $(( $(date +%s) - t0 )) s for $trials trials"
echo
awk -v strict="$strict" -v threads="$threads" -v runs="$runs" -v hs="$hashsecs" '
  function median(list,   n, a, i, j, x) {
    n = split(list, a, " ")
    if (n == 0) return 0
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x }
    return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
  }
  { v[$1, $2, $3] = $4; list[$1 " " $2] = list[$1 " " $2] " " $4; trial[$3] = 1 }
  END {
    split("wake wake-parallel requeue hash", order, " ")
    unit["wake"] = "ms"; unit["wake-parallel"] = "ms"; unit["requeue"] = "ms"; unit["hash"] = "ops/s/thr"
    args["wake"] = "-t " threads " -w 1 -r " runs
    args["wake-parallel"] = "-t " threads " -w " threads " -r " runs
    args["requeue"] = "-t " threads " -q 1 -r " runs
    args["hash"] = "-t " threads " -r " hs " -f 1024"
    printf "%-13s %-19s %-9s %12s %12s %9s %5s %12s %9s\n", "bench", "parameters", "unit", "perf", "futex", "futex/perf", "1.15x", "c-futex", "c/perf"
    bad = 0
    for (k = 1; k <= 4; k++) {
      b = order[k]
      r = ""; rc = ""
      for (t in trial) {
        if (v[b, "perf", t] > 0) {
          r = r " " v[b, "futex", t] / v[b, "perf", t]
          if ((b, "c-futex", t) in v) rc = rc " " v[b, "c-futex", t] / v[b, "perf", t]
        }
      }
      q = median(r)
      ok = (q >= 1/1.15 && q <= 1.15) ? "yes" : "NO"
      if (ok == "NO") bad++
      c = rc == "" ? "-" : sprintf("%12.4f", median(list[b " c-futex"]))
      cr = rc == "" ? "-" : sprintf("%9.3f", median(rc))
      printf "%-13s %-19s %-9s %12.4f %12.4f %9.3f %5s %12s %9s\n", b, args[b], unit[b], median(list[b " perf"]), median(list[b " futex"]), q, ok, c, cr
      printf "%-13s %s\n", "", "trials: perf" list[b " perf"] " | futex" list[b " futex"] (rc == "" ? "" : " | c-futex" list[b " c-futex"])
    }
    print ""
    print "wake, wake-parallel, requeue: a trial'"'"'s figure is the median of its runs (ms); hash: perf'"'"'s Averaged ops/s per thread."
    print "futex/perf and c/perf are the medians of the per-trial ratios; perf and the parkbench columns the medians of each tool'"'"'s figures."
    if (bad) printf "peer-perf: %d of 4 benches outside 1.15x (docs/experiments.md, \"parkbench wake\", says what each times)\n", bad
    else print "peer-perf: every bench within 1.15x"
    exit (strict && bad) ? 1 : 0
  }' "$tmp/figures"
