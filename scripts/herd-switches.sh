#!/usr/bin/env bash
# scripts/herd-switches.sh: where the herd's context switches come from
# (docs/findings.md, "herd").
#
#   scripts/herd-switches.sh [RUNS] [BASE_REV]     (default 3, no base)
#
# Runs `parkbench herd --waiters=64 --impl=lot,futex-broadcast,futex-requeue`
# RUNS times and prints, per implementation, the participants' context
# switches (median over the 5 repeats) and their phases: before the notify
# (each waiter's park, one apiece, plus whatever its way into the wait
# cost), from the notify to holding the mutex, and the hold and release;
# the involuntary part of each in parentheses. With BASE_REV (a git
# revision, e.g. 509d69b) the same command of that revision runs before
# each run of this tree, built from `git archive` in a temporary
# directory, and its totals are printed beside (an older tree has no
# phases).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
base=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/parkbench" ./cmd/parkbench
if [ -n "$base" ]; then
	mkdir "$work/base"
	git archive "$base" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/parkbench-base" ./cmd/parkbench)
fi
cmd=(herd --waiters=64 --impl=lot,futex-broadcast,futex-requeue --quiet --format=json)
summarize() { # FILE LABEL
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
label = sys.argv[2]
for e in d["experiments"]:
    for c in e["configs"]:
        s = c["summary"]
        line = "%-6s %-16s parts %5.0f (invol %3.0f)" % (label, c["impl"], s.get("ctxsw_participants", -1), s.get("ctxsw_participants_invol", -1))
        if "ctxsw_parts_before_notify" in s:
            line += "  before notify %4.0f (%2.0f)  to lock %3.0f (%2.0f)  release %3.0f (%2.0f)" % tuple(
                s[k] for k in ["ctxsw_parts_before_notify", "ctxsw_parts_before_notify_invol", "ctxsw_parts_to_lock",
                               "ctxsw_parts_to_lock_invol", "ctxsw_parts_release", "ctxsw_parts_release_invol"])
        line += "  proc %4.0f  first %6.1f us" % (s.get("ctxsw_process", -1), s.get("first_ns", 0) / 1000)
        print(line)
EOF
}
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') (family $(grep -m1 'cpu family' /proc/cpuinfo | sed 's/.*: //') model $(grep -m1 '^model\s' /proc/cpuinfo | sed 's/.*: //')), $(nproc) CPUs"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$runs"); do
	echo "== run $i/$runs"
	if [ -n "$base" ]; then
		"$work/parkbench-base" "${cmd[@]}" >"$work/base$i.json"
		summarize "$work/base$i.json" base
	fi
	"$work/parkbench" "${cmd[@]}" >"$work/run$i.json"
	summarize "$work/run$i.json" now
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
