#!/usr/bin/env bash
# loaded-quick-time.sh: how long `parkbench loaded --quick` takes here, and
# how many configurations it ran (it replaces a test that only logged this,
# behind an environment variable). Report the CPU and the load with it.
#
# Usage: scripts/loaded-quick-time.sh [extra parkbench loaded flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "loaded-quick-time.sh: needs jq" >&2; exit 2; }
bin=$(mktemp -d)/parkbench
out=$(mktemp)
trap 'rm -rf "$(dirname "$bin")" "$out"' EXIT
go build -o "$bin" ./cmd/parkbench
grep -m1 'model name' /proc/cpuinfo 2>/dev/null || true
uptime
start=$(date +%s%N)
"$bin" loaded --quick --format=json "$@" >"$out"
end=$(date +%s%N)
ms=$(((end - start) / 1000000))
printf 'loaded --quick: %d configurations in %d.%03d s\n' "$(jq '[.experiments[].configs[]] | length' "$out")" $((ms / 1000)) $((ms % 1000))
jq -r '.experiments[].notes[]?' "$out"
