#!/usr/bin/env bash
# peer-perf.sh: perf bench futex beside parkbench wake --impl=futex.
#
# Runs `perf bench futex wake / wake-parallel / requeue / hash` and
# `parkbench wake --impl=futex` with the same parameters, interleaved
# (perf, parkbench, perf, parkbench, ... bench by bench, trial by trial, so
# that a change in the machine's load hits both), reads the summary line
# each prints (parkbench's --format=perf prints perf's own lines), and
# prints per bench the median over the trials of each tool's figure and
# their ratio parkbench / perf. The target is a ratio within 1.15x either
# way on each bench; --strict exits 1 when one is outside it (CI runs it
# without: noise alone must not fail a build).
#
# What each times: perf's wake, wake-parallel and requeue time the waker's
# calls with gettimeofday (whole µs, tv_usec only) after a 100 ms usleep;
# parkbench the same calls with CLOCK_MONOTONIC after the same sleep of its
# own thread (--settle 100ms), its waiters seen asleep first. hash is
# operations per second per thread (perf divides by whole seconds,
# parkbench by the measured time). docs/experiments.md ("parkbench wake")
# has the rest.
#
# Usage: scripts/peer-perf.sh [--parkbench BIN] [--trials N] [--runs N]
#                             [--threads N] [--hash-secs N] [--strict]
# Defaults: 3 trials, perf's defaults otherwise (10 runs, -t = online CPUs,
# one wake or requeue per call, as many parallel wakers as threads), hash
# for 1 s. About 30 s on two vCPUs.
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
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
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

# Each bench: name, perf's arguments, parkbench's arguments, the summary
# line's pattern and the field of its figure (awk, on that line).
perfargs() {
  case "$1" in
    wake) echo "-r $runs futex wake -t $threads -w 1" ;;
    wake-parallel) echo "-r $runs futex wake-parallel -t $threads -w $threads" ;;
    requeue) echo "-r $runs futex requeue -t $threads -q 1" ;;
    hash) echo "futex hash -t $threads -r $hashsecs -f 1024" ;;
  esac
}
pbargs() {
  local common="wake --impl=futex --quiet --format=perf --threads=$threads --runs=$runs --settle=100ms"
  case "$1" in
    wake) echo "$common --bench=wake --wakes=1" ;;
    wake-parallel) echo "$common --bench=wake-parallel --wakers=$threads" ;;
    requeue) echo "$common --bench=requeue --requeues=1" ;;
    hash) echo "$common --bench=hash --hash-threads=$threads --hash-time=${hashsecs}s --hash-rounds=1 --futexes=1024" ;;
  esac
}
# figure prints the bench's summary figure from a perf-format output: ms
# for the three wake benches, operations/s per thread for hash.
figure() {
  case "$1" in
    wake) awk '/^Wokeup [0-9]+ of [0-9]+ threads in .* ms \(\+-/ { for (i=1;i<=NF;i++) if ($i=="ms") v=$(i-1) } END { print v }' ;;
    wake-parallel) awk '/^Avg per-thread latency .* ms \(\+-/ { for (i=1;i<=NF;i++) if ($i=="ms") v=$(i-1) } END { print v }' ;;
    requeue) awk '/^Requeued [0-9]+ of [0-9]+ threads in .* ms \(\+-/ { for (i=1;i<=NF;i++) if ($i=="ms") v=$(i-1) } END { print v }' ;;
    hash) awk '/^Averaged [0-9]+ operations\/sec/ { v=$2 } END { print v }' ;;
  esac
}

benches="wake wake-parallel requeue hash"
echo "peer-perf: $(perf --version), parkbench $("$pb" --version 2>/dev/null | head -1)"
echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs, kernel $(uname -r)"
echo "load before: $(uptime)"
t0=$(date +%s)
for t in $(seq "$trials"); do
  for b in $benches; do
    # shellcheck disable=SC2046
    perf bench $(perfargs "$b") > "$tmp/perf-$b-$t.txt" 2>&1 || { echo "peer-perf: perf bench $(perfargs "$b") failed:"; cat "$tmp/perf-$b-$t.txt"; exit 1; }
    # shellcheck disable=SC2046
    "$pb" $(pbargs "$b") > "$tmp/pb-$b-$t.txt" 2>"$tmp/pb-$b-$t.err" || { echo "peer-perf: parkbench $(pbargs "$b") failed:"; cat "$tmp/pb-$b-$t.err"; exit 1; }
    for tool in perf pb; do
      v=$(figure "$b" < "$tmp/$tool-$b-$t.txt")
      if [ -z "$v" ]; then echo "peer-perf: no summary line in $tool's $b output:"; cat "$tmp/$tool-$b-$t.txt"; exit 1; fi
      echo "$b $tool $t $v" >> "$tmp/figures"
    done
  done
done
echo "load after:  $(uptime)"
echo "time: $(( $(date +%s) - t0 )) s for $trials trials"
echo
awk -v strict="$strict" -v threads="$threads" -v runs="$runs" -v hs="$hashsecs" '
  function median(list,   n, a, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x }
    return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
  }
  { vals[$1 " " $2] = vals[$1 " " $2] " " $4 }
  END {
    split("wake wake-parallel requeue hash", order, " ")
    unit["wake"] = "ms"; unit["wake-parallel"] = "ms"; unit["requeue"] = "ms"; unit["hash"] = "ops/s/thread"
    args["wake"] = "-t " threads " -w 1 -r " runs
    args["wake-parallel"] = "-t " threads " -w " threads " -r " runs
    args["requeue"] = "-t " threads " -q 1 -r " runs
    args["hash"] = "-t " threads " -r " hs " -f 1024"
    printf "%-14s %-22s %-13s %14s %14s %8s  %s\n", "bench", "parameters", "unit", "perf", "parkbench", "pb/perf", "within 1.15x"
    bad = 0
    for (k = 1; k <= 4; k++) {
      b = order[k]
      p = median(vals[b " perf"]); q = median(vals[b " pb"])
      r = p > 0 ? q / p : 0
      ok = (r >= 1/1.15 && r <= 1.15) ? "yes" : "NO"
      if (ok == "NO") bad++
      printf "%-14s %-22s %-13s %14.4f %14.4f %8.3f  %s\n", b, args[b], unit[b], p, q, r, ok
      printf "%-14s %-22s %-13s %s | %s\n", "", "  trials perf | pb", "", vals[b " perf"], vals[b " pb"]
    }
    print ""
    if (bad) printf "peer-perf: %d of 4 benches outside 1.15x (docs/experiments.md, \"parkbench wake\", says what each times)\n", bad
    else print "peer-perf: every bench within 1.15x"
    exit (strict && bad) ? 1 : 0
  }' "$tmp/figures"
