#!/usr/bin/env bash
# scripts/spin-figures.sh: the figures of docs/findings.md's "Spinning
# before parking" and "The idle pool": parkbench spin (the default run)
# and parkbench herd --mode=idle (N = 16, then the default N = 1, 4, 16,
# 64), with the CPU and the load before each, their tables, the plot.
#
#   scripts/spin-figures.sh [OUTDIR]     (default: a temporary directory)
#
# Keeps the results (JSON) and spin.svg in OUTDIR. Changes nothing in the
# kernel. About a minute and a half on a 2-vCPU guest; take it with
# nothing else running.
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
grep -m1 'cpu family' /proc/cpuinfo || true
grep -m1 '^model[[:space:]]' /proc/cpuinfo || true
echo "load before spin: $(cut -d' ' -f1-3 /proc/loadavg)"
"$pb" spin --quiet --format=json --out "$out/spin.json" >/dev/null
echo "load before herd --mode=idle --waiters=16: $(cut -d' ' -f1-3 /proc/loadavg)"
"$pb" herd --mode=idle --waiters=16 --quiet --format=json --out "$out/herd-idle-16.json" >/dev/null
echo "load before herd --mode=idle: $(cut -d' ' -f1-3 /proc/loadavg)"
"$pb" herd --mode=idle --quiet --format=json --out "$out/herd-idle.json" >/dev/null
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$pb" report "$out/spin.json" "$out/herd-idle-16.json" "$out/herd-idle.json"
"$pb" plot "$out/spin.json" --out "$out/spin.svg"
