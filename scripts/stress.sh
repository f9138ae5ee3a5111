#!/usr/bin/env bash
# scripts/stress.sh: run the stress suite (internal/stress) in long mode in
# four builds: plain, -race, -tags parkchaos, -race -tags parkchaos, and
# print a summary per build (cases, ops, checks, faults injected, time) from
# the STRESS lines the tests log (the checker tests, case=broken/..., run
# deliberately broken mechanisms and are not counted).
#
# usage: scripts/stress.sh [duration-per-case]     (default 1s; e.g. 10s, 1m)
# env:   STRESS_BUILDS   builds to run, space-separated, from: plain race chaos race+chaos
#        STRESS_RUN      -run regexp (default: all tests)
#        PARKCHAOS_RATE / PARKCHAOS_MIX / PARKCHAOS_SLEEP   passed through (see internal/chaos)
#        STRESS_LOGDIR   where to keep the full logs (default: a temp directory)
set -u
cd "$(dirname "$0")/.." || exit 2
dur=${1:-1s}
builds=${STRESS_BUILDS:-"plain race chaos race+chaos"}
run=${STRESS_RUN:-.}
logdir=${STRESS_LOGDIR:-$(mktemp -d /tmp/parkbench-stress.XXXXXX)}
mkdir -p "$logdir"

status=0
summary=()
for b in $builds; do
	flags=()
	case $b in
	plain) ;;
	race) flags=(-race) ;;
	chaos) flags=(-tags parkchaos) ;;
	race+chaos) flags=(-race -tags parkchaos) ;;
	*) echo "stress.sh: unknown build $b" >&2; exit 2 ;;
	esac
	log="$logdir/$b.log"
	echo "== $b: go test ${flags[*]} -stress.duration=$dur (log: $log)"
	start=$(date +%s)
	go test "${flags[@]}" -count=1 -v -timeout 3h -run "$run" ./internal/stress/ -stress.duration="$dur" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	[ $rc = 0 ] || status=1
	line=$(awk -v b="$b" -v rc="$rc" -v secs="$secs" '
		/STRESS case=/ && !/STRESS case=broken\// {
			n++
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "ops") ops += kv[2]
				if (kv[1] == "checks") checks += kv[2]
				if (kv[1] == "faults") faults += kv[2]
				if (kv[1] == "threads" && kv[2] > maxth) maxth = kv[2]
			}
		}
		/^--- FAIL/ { fails++ }
		END {
			printf "%-11s cases=%d ops=%d checks=%d faults_injected=%d max_threads=%d failed_tests=%d time=%ds %s\n",
				b, n, ops, checks, faults, maxth, fails, secs, (rc == 0 ? "PASS" : "FAIL")
		}' "$log")
	echo "$line"
	summary+=("$line")
	if [ $rc != 0 ]; then
		grep -E '^(--- FAIL|panic|FAIL)|LOST WAKEUP|violated' "$log" | head -20
	fi
	grep -A40 '^parkchaos:' "$log" | grep -E '^(parkchaos:|  )' | head -40
done
echo
echo "== summary (duration per case $dur, logs in $logdir)"
printf '%s\n' "${summary[@]}"
exit $status
