#!/usr/bin/env bash
# keycheck.sh: the names a suite run's result carries, one per line, sorted:
# per experiment its config keys, metric names (the metric description's
# keys and every summary key), claim IDs and option keys. Two builds whose
# lists match name the same things (values are not compared: a run measures).
#
# Usage: scripts/keycheck.sh [RESULT.json]
#   with no file, runs `go run ./cmd/parkbench run --quick --format=json`
#   (about a minute) from the current directory and reads its output.
#        scripts/keycheck.sh --smoke
#   lists the names of a recorded suite under results/ (seconds; .ci/run).
# A before/after check of a refactor:
#   (git checkout BASE) scripts/keycheck.sh > before.txt
#   (this tree)         scripts/keycheck.sh > after.txt
#   diff before.txt after.txt
set -euo pipefail
command -v jq >/dev/null || { echo "keycheck.sh: needs jq" >&2; exit 2; }
if [ "${1:-}" = --smoke ]; then
	cd "$(dirname "$0")/.."
	rec=$(ls results/*/suite-*.json | tail -1)
	n=$(bash scripts/keycheck.sh "$rec" | wc -l)
	[ "$n" -gt 100 ] || { echo "keycheck.sh: only $n names in $rec" >&2; exit 1; }
	echo "keycheck.sh --smoke: $n names in $rec: ok"
	exit 0
elif [ $# -ge 1 ]; then
	in=$1
else
	in=$(mktemp)
	trap 'rm -f "$in"' EXIT
	go run ./cmd/parkbench run --quick --format=json >"$in"
fi
jq -r '.experiments[] | .name as $e |
	(.configs[] | "\($e) config \(.key)"),
	(.configs[] | .summary // {} | keys[] | "\($e) summary \(.)"),
	(.metrics // [] | .[] | "\($e) metric \(.key)"),
	(.claims // [] | .[] | "\($e) claim \(.id)"),
	(.options // {} | keys[] | "\($e) option \(.)")' "$in" | sort -u
