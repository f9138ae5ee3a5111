#!/usr/bin/env bash
# scripts/soak.sh: the long soak (issue 11 item 6). Runs the whole stress
# suite (internal/stress: every parker backend through the ThreadParker and
# TokenParker protocols, the lot on every backend, and every lot type that
# has a stress test there; new tests join by the -run pattern) again and
# again for DURATION, cycling through the builds -race -tags parkchaos,
# -race, -tags parkchaos and plain, and prints operations, checks, faults
# injected and violations per build and in total, summed from the STRESS
# lines the cases log (the checker tests' deliberately broken mechanisms,
# case=broken/..., are not counted).
#
# usage: scripts/soak.sh [DURATION]      (default 10m; e.g. 30s, 1h)
# env:   SOAK_BUILDS  builds, in order, from: race+chaos race chaos plain
#                     (default: all four)
#        SOAK_CASE    how long each stress case runs (default 1s)
#        SOAK_RUN     -run regexp of the tests (default: every test)
#        SOAK_LOGDIR  where to keep the logs (default: a temp directory)
#        PARKCHAOS_RATE / PARKCHAOS_MIX / PARKCHAOS_SLEEP   see internal/chaos
# exit:  0 no violation and no failed test; 1 otherwise; 2 bad usage.
#
# A pass still running at the deadline is stopped (SIGTERM); the cases it
# finished are counted, and the pass is reported as cut, not failed.
set -u
cd "$(dirname "$0")/.." || exit 2
dur=${1:-10m}
case $dur in
*h) secs=$((${dur%h} * 3600)) ;;
*m) secs=$((${dur%m} * 60)) ;;
*s) secs=${dur%s} ;;
*) secs=$dur ;;
esac 2>/dev/null
case $secs in
'' | *[!0-9]*) echo "soak.sh: bad duration '$dur' (want e.g. 90s, 10m, 1h)" >&2; exit 2 ;;
esac
builds=${SOAK_BUILDS:-"race+chaos race chaos plain"}
casedur=${SOAK_CASE:-1s}
run=${SOAK_RUN:-.}
logdir=${SOAK_LOGDIR:-$(mktemp -d /tmp/parkbench-soak.XXXXXX)}
mkdir -p "$logdir" || exit 2

# Build one test binary per build first, so compiling is not soak time.
declare -A bin
for b in $builds; do
	flags=()
	case $b in
	plain) ;;
	race) flags=(-race) ;;
	chaos) flags=(-tags parkchaos) ;;
	race+chaos) flags=(-race -tags parkchaos) ;;
	*) echo "soak.sh: unknown build $b (want race+chaos race chaos plain)" >&2; exit 2 ;;
	esac
	bin[$b]="$logdir/stress-$b.test"
	echo "== building $b: go test -c ${flags[*]}"
	go test -c "${flags[@]}" -o "${bin[$b]}" ./internal/stress/ || exit 1
done

start=$(date +%s)
end=$((start + secs))
echo "== soak for ${secs}s, ${casedur} per case, builds: $builds (logs: $logdir)"
status=0
pass=0
while [ "$(date +%s)" -lt $end ]; do
	for b in $builds; do
		now=$(date +%s)
		[ $now -lt $end ] || break
		pass=$((pass + 1))
		log="$logdir/pass$pass-$b.log"
		(cd internal/stress && timeout -s TERM $((end - now)) "${bin[$b]}" -test.v -test.count=1 \
			-test.timeout=3h -test.run "$run" -stress.duration="$casedur") >"$log" 2>&1
		rc=$?
		if [ $rc = 124 ]; then
			echo "pass $pass $b: cut at the deadline"
			echo "SOAKPASS build=$b rc=cut" >>"$log"
		elif [ $rc != 0 ]; then
			status=1
			echo "pass $pass $b: FAILED (rc $rc), log $log"
			grep -E '^(--- FAIL|panic|FAIL)|LOST WAKEUP|violat' "$log" | head -20
			echo "SOAKPASS build=$b rc=$rc" >>"$log"
		else
			echo "pass $pass $b: ok"
			echo "SOAKPASS build=$b rc=0" >>"$log"
		fi
	done
done
elapsed=$(($(date +%s) - start))

# Sum the STRESS lines of every pass, per build and in total.
echo
echo "== soak summary: ${elapsed}s, $pass passes, ${casedur} per case (load: $(cut -d' ' -f1-3 /proc/loadavg))"
for log in "$logdir"/pass*.log; do
	b=${log##*/pass*-}
	b=${b%.log}
	awk -v b="$b" '
		/STRESS case=/ && !/STRESS case=broken\// {
			n++
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				s[kv[1]] += kv[2]
			}
		}
		/^--- FAIL/ && !/TestChecker/ { fails++ }
		END { printf "%s %d %d %d %d %d %d\n", b, n, s["ops"], s["checks"], s["faults"], s["violations"], fails }' "$log"
done | awk '
	{
		if (!($1 in passes)) order[++n] = $1
		for (k = 0; k <= 1; k++) {
			b = (k == 0 ? $1 : "total")
			passes[b]++; cases[b] += $2; ops[b] += $3; checks[b] += $4; faults[b] += $5; viol[b] += $6; fails[b] += $7
		}
	}
	END {
		order[++n] = "total"
		for (j = 1; j <= n; j++) {
			b = order[j]
			printf "%-11s passes=%d cases=%d ops=%d checks=%d faults_injected=%d violations=%d failed_tests=%d\n",
				b, passes[b], cases[b], ops[b], checks[b], faults[b], viol[b], fails[b]
		}
	}'
echo "logs: $logdir"
exit $status
