#!/usr/bin/env bash
# scripts/stress.sh: the stress suite (internal/stress) in long mode.
#
#   scripts/stress.sh [DURATION_PER_CASE]   one pass per build (default 1s; e.g. 10s, 1m)
#   scripts/stress.sh soak [DURATION]       the soak (default 10m; e.g. 30s, 1h; docs/reliability-soak.md)
#   scripts/stress.sh --smoke               three tests, two builds, and a 5 s soak of them (.ci/run)
#
# Give each case 1s or more when the whole suite runs: below a few hundred
# ms the checker tests (TestCheckerCatches*) may not catch their broken
# mechanism in time, and fail.
#
# One pass per build: runs the suite in four builds: plain, -race, -tags
# parkchaos, -race -tags parkchaos, and prints a summary per build (cases,
# ops, checks, faults injected, time) from the STRESS lines the tests log
# (the checker tests, case=broken/..., run deliberately broken mechanisms
# and are not counted).
# env:   STRESS_BUILDS   builds to run, space-separated, from: plain race chaos race+chaos
#        STRESS_RUN      -run regexp (default: all tests)
#        PARKCHAOS_RATE / PARKCHAOS_MIX / PARKCHAOS_SLEEP   passed through (see internal/chaos)
#        STRESS_LOGDIR   where to keep the full logs (default: a temp directory)
#
# soak: runs the whole suite (every parker backend through the ThreadParker
# and TokenParker protocols, the lot on every backend, and every lot type
# that has a stress test there; new tests join by the -run pattern) again
# and again for DURATION, cycling through the builds -race -tags parkchaos,
# -race, -tags parkchaos and plain, and prints operations, checks, faults
# injected and violations per build and in total, summed from the STRESS
# lines the cases log.
# env:   SOAK_BUILDS  builds, in order, from: race+chaos race chaos plain
#                     (default: all four)
#        SOAK_CASE    how long each stress case runs (default 1s)
#        SOAK_RUN     -run regexp of the tests (default: every test)
#        SOAK_LOGDIR  where to keep the logs (default: a temp directory)
#        PARKCHAOS_RATE / PARKCHAOS_MIX / PARKCHAOS_SLEEP   see internal/chaos
# A soak pass still running at the deadline is stopped (SIGTERM); the cases
# it finished are counted, and the pass is reported as cut, not failed.
#
# exit:  0 no violation and no failed test; 1 otherwise; 2 bad usage.
set -u
cd "$(dirname "$0")/.." || exit 2

# buildflags BUILD: the go test flags of BUILD in $flags.
buildflags() {
	flags=()
	case $1 in
	plain) ;;
	race) flags=(-race) ;;
	chaos) flags=(-tags parkchaos) ;;
	race+chaos) flags=(-race -tags parkchaos) ;;
	*) echo "stress.sh: unknown build $1 (want plain race chaos race+chaos)" >&2; return 1 ;;
	esac
}

passes() { # [DURATION_PER_CASE]
	dur=${1:-1s}
	builds=${STRESS_BUILDS:-"plain race chaos race+chaos"}
	run=${STRESS_RUN:-.}
	logdir=${STRESS_LOGDIR:-$(mktemp -d /tmp/parkbench-stress.XXXXXX)}
	mkdir -p "$logdir"

	status=0
	summary=()
	for b in $builds; do
		buildflags "$b" || return 2
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
	return $status
}

soak() { # [DURATION]
	dur=${1:-10m}
	case $dur in
	*h) secs=$((${dur%h} * 3600)) ;;
	*m) secs=$((${dur%m} * 60)) ;;
	*s) secs=${dur%s} ;;
	*) secs=$dur ;;
	esac 2>/dev/null
	case $secs in
	'' | *[!0-9]*) echo "stress.sh soak: bad duration '$dur' (want e.g. 90s, 10m, 1h)" >&2; exit 2 ;;
	esac
	builds=${SOAK_BUILDS:-"race+chaos race chaos plain"}
	casedur=${SOAK_CASE:-1s}
	run=${SOAK_RUN:-.}
	logdir=${SOAK_LOGDIR:-$(mktemp -d /tmp/parkbench-soak.XXXXXX)}
	mkdir -p "$logdir" || exit 2

	# Build one test binary per build first, so compiling is not soak time.
	declare -A bin
	for b in $builds; do
		buildflags "$b" || exit 2
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
	return $status
}

case ${1:-} in
soak)
	shift
	soak "$@"
	;;
--smoke)
	[ $# = 1 ] || { echo "stress.sh: --smoke takes no arguments" >&2; exit 2; }
	t0=$SECONDS
	logs=$(mktemp -d)
	trap 'rm -rf "$logs"' EXIT
	# Three tests at 20 ms a case: the checker tests need longer to catch
	# their broken mechanisms.
	tests='^(TestThreadParkersPingPong|TestLotOverEveryBackend|TestLotMutex)$'
	echo "== stress.sh 20ms, builds plain and race+chaos, $tests"
	STRESS_BUILDS="plain race+chaos" STRESS_RUN=$tests STRESS_LOGDIR=$logs/passes passes 20ms || exit 1
	echo "== stress.sh soak 5s, build plain, 20ms per case, $tests"
	SOAK_BUILDS=plain SOAK_CASE=20ms SOAK_RUN=$tests SOAK_LOGDIR=$logs/soak soak 5s || exit 1
	echo "stress.sh --smoke: ok ($((SECONDS - t0))s)"
	;;
-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
*)
	[ $# -le 1 ] || { echo "stress.sh: one argument, the duration per case (or soak DURATION, --smoke)" >&2; exit 2; }
	passes "$@"
	;;
esac
