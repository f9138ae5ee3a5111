#!/usr/bin/env bash
# scripts/goroutines.sh: threads against goroutines (docs/experiments.md,
# "Goroutines"): the two commands of the goroutines issue, their tables,
# the traced wake shares and the claims.
#
#   scripts/goroutines.sh [OUTDIR]     (default: a temporary directory)
#
# Runs `parkbench latency --impl=chan,cond,lot
# --participants=threads,goroutines --gomaxprocs=1,2` and `parkbench lock
# --participants=goroutines --impl=sync,lot --threads=2,8`, keeps both
# results (JSON) in OUTDIR, prints the load before each, the tables
# (parkbench report) and, per goroutine configuration, the wake shares.
# Changes nothing in the kernel. About 2 minutes on a quiet 2-vCPU guest.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${out:-$work}
mkdir -p "$out"
go build -o "$work/parkbench" ./cmd/parkbench
pb=$work/parkbench
grep -m1 'model name' /proc/cpuinfo || true
echo "load before latency: $(cut -d' ' -f1-3 /proc/loadavg)"
"$pb" latency --impl=chan,cond,lot --participants=threads,goroutines --gomaxprocs=1,2 --quiet --format=json --out "$out/latency.json" >/dev/null
echo "load before lock: $(cut -d' ' -f1-3 /proc/loadavg)"
"$pb" lock --participants=goroutines --impl=sync,lot --threads=2,8 --quiet --format=json --out "$out/lock.json" >/dev/null
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$pb" report --wide "$out/latency.json" "$out/lock.json"
echo
echo "traced wake shares (goroutine rows): same P / other P / thread woken, wakes per round trip"
python3 - "$out/latency.json" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1]))["experiments"]:
    for c in e["configs"]:
        s = c["summary"]
        if c["params"].get("participants") != "goroutines" or "sched_wakes_per_rt" not in s:
            continue
        print("  %-26s %5.1f%% %5.1f%% %5.1f%%  %.2f" % (c["key"], 100 * s["wake_same_p_share"],
              100 * s["wake_other_p_share"], 100 * s["wake_thread_woken_share"], s["sched_wakes_per_rt"]))
PY
echo "results: $out/latency.json $out/lock.json"
