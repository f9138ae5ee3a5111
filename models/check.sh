#!/usr/bin/env bash
# models/check.sh: model-check "no lost wakeup" for every parker and for the
# parking lot handshake with spin, and prove every bug variant is caught.
#
# For each case it generates the verifier twice:
#   safety    spin -a; gcc -DSAFETY; ./pan        assertions + invalid end states
#                                                  (a waiter asleep forever = invalid end state)
#   liveness  spin -a -DLTL; gcc; ./pan -a -f      ltl "<> finished" under weak fairness
# A correct model must pass both; a bug variant must fail at least one.
# Exits non-zero if a correct model fails or a bug variant passes.
#
# Environment: MODELS_REQUIRE=1 makes a missing spin fatal instead of a skip.
#              MODELS_DEEP=1 adds larger bounds (more rounds, spurious wakeups, timeouts).
#              MODELS_KEEP=1 keeps the work directory (trails) and prints it.
set -u
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v spin >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "models: spin not found, installing it with apt-get" >&2
		apt-get install -y -q spin >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q spin >/dev/null 2>&1; }
	fi
fi
if ! command -v spin >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
	echo "models: SKIP: spin and gcc are needed (apt-get install -y spin gcc, as root)" >&2
	[ "${MODELS_REQUIRE:-0}" = 1 ] && exit 1
	exit 0
fi

work=$(mktemp -d /tmp/parkbench-models.XXXXXX)
if [ "${MODELS_KEEP:-0}" = 1 ]; then
	echo "models: work directory $work"
else
	trap 'rm -rf "$work"' EXIT
fi

# case list: model | expectation (pass/fail) | spin defines
cases=(
	"futex.pml|pass|"
	"futex.pml|pass|-DROUNDS=3 -DMAXSPUR=2"
	"futex.pml|fail|-DBUG_FUTEX_CHECK_THEN_SLEEP"
	"pthread.pml|pass|"
	"pthread.pml|pass|-DMAXSPUR=2 -DMAXTO=2"
	"pthread.pml|fail|-DBUG_PTHREAD_NO_MUTEX"
	"pingpong.pml|pass|"
	"pingpong.pml|pass|-DROUNDS=3 -DMAXSPUR=2"
	"pingpong.pml|fail|-DBUG_PLAIN_PREPARE"
	"crossbeam.pml|pass|"
	"crossbeam.pml|pass|-DROUNDS=4 -DMAXSPUR=2 -DMAXTO=2"
	"crossbeam.pml|fail|-DBUG_CROSSBEAM_NO_LOCK"
	"stdfutex.pml|pass|"
	"stdfutex.pml|pass|-DROUNDS=4 -DMAXSPUR=2 -DMAXTO=2"
	"stdfutex.pml|fail|-DBUG_FUTEX_CHECK_THEN_SLEEP"
	"stdfutex.pml|fail|-DBUG_STD_NONATOMIC_SWAP"
	"lot.pml|pass|"
	"lot.pml|pass|-DMAXTO=0"
	"lot.pml|pass|-DMAXSPUR=2 -DMAXTO=3"
	"lot.pml|fail|-DBUG_LOT_VALIDATE_OUTSIDE"
	"lot.pml|fail|-DBUG_LOT_VALIDATE_OUTSIDE -DMAXTO=0"
	"lot.pml|fail|-DBUG_LOT_PREPARE_AFTER_UNLOCK"
	"lot.pml|fail|-DBUG_LOT_PREPARE_AFTER_UNLOCK -DMAXTO=0"
	"lot.pml|fail|-DBUG_LOT_WAKE_BEFORE_MARK"
	"lot.pml|fail|-DBUG_LOT_WAKE_BEFORE_MARK -DMAXTO=0"
	"lot.pml|fail|-DBUG_LOT_NO_LATE_UNPARK_CHECK"
	"rawmutex.pml|pass|"
	"rawmutex.pml|fail|-DBUG_MUTEX_TIMEOUT_IGNORES_WAS_LAST"
	"condvar.pml|pass|"
	"condvar.pml|pass|-DMAXSPUR=3"
	"condvar.pml|fail|-DBUG_CONDVAR_UNLOCK_BEFORE_PARK"
	"condvar.pml|fail|-DBUG_CONDVAR_REQUEUE_NO_PARKED"
	"rwlock.pml|pass|"
	"rwlock.pml|pass|-DMAXTO=0"
	"rwlock.pml|fail|-DBUG_RW_VALIDATE_NO_PARKED"
	"rwlock.pml|fail|-DBUG_RW_UNLOCK_SHARED_NEW_VALUE"
	"rwlock.pml|fail|-DBUG_RW_TIMEOUT_NO_WAKE"
	"rwlock.pml|pass|-DMISUSE"
	"rwlock.pml|pass|-DMISUSE -DMAXTO=0"
	"rwlock.pml|fail|-DMISUSE -DBUG_RW_MISUSE_UNLOCK_WRITER_ONLY"
	"rwlock.pml|fail|-DMISUSE -DBUG_RW_MISUSE_RUNLOCK_READERS_ONLY"
	"keyedevent.pml|pass|"
	"keyedevent.pml|pass|-DSELFWAKE=0"
	"keyedevent.pml|pass|-DROUNDS=3 -DMAXTO=2"
	"keyedevent.pml|pass|-DSELFWAKE=0 -DBUG_KE_PARKED_AT_PREPARE"
	"keyedevent.pml|fail|-DBUG_KE_PARKED_AT_PREPARE"
	"keyedevent.pml|fail|-DBUG_KE_TIMEOUT_NO_TAKE"
	"keyedevent.pml|fail|-DBUG_KE_RELEASE_ALWAYS"
	"pifutex.pml|pass|"
	"pifutex.pml|pass|-DUNLOCK_LOAD"
	"pifutex.pml|pass|-DN=2 -DROUNDS=3"
	"pifutex.pml|fail|-DBUG_PI_PLAIN_UNLOCK"
	"pifutex.pml|fail|-DBUG_PI_PLAIN_UNLOCK -DNO_WORD_CHECK"
	"pifutex.pml|fail|-DBUG_PI_UNLOCK_IGNORES_WAITERS -DNO_WORD_CHECK"
	"pifutex.pml|fail|-DBUG_PI_KERNEL_SPLIT -DNO_WORD_CHECK"
	"pifutex.pml|fail|-DBUG_PI_NONATOMIC_FASTPATH -DNO_WORD_CHECK"
)
if [ "${MODELS_DEEP:-0}" = 1 ]; then
	cases+=(
		"lot.pml|pass|-DMAXSPUR=3 -DMAXTO=4"
		"crossbeam.pml|pass|-DROUNDS=6 -DMAXSPUR=3 -DMAXTO=3"
		"stdfutex.pml|pass|-DROUNDS=6 -DMAXSPUR=3 -DMAXTO=3"
		"rawmutex.pml|pass|-DMAXSPUR=2 -DMAXTO=2"
		"rwlock.pml|pass|-DMAXTO=2"
		"rwlock.pml|pass|-DMISUSE -DMAXTO=2"
		"keyedevent.pml|pass|-DROUNDS=4 -DMAXTO=3"
		"pifutex.pml|pass|-DROUNDS=3"
		"pifutex.pml|pass|-DROUNDS=3 -DUNLOCK_LOAD"
	)
fi

# run one verification; prints "states depth errors firsterror"
verify() { # dir mode defines...
	local dir=$1 mode=$2; shift 2
	local out
	(
		cd "$dir" || exit 1
		rm -f pan pan.* ./*.trail
		# small models: compiling dominates, so -O0; rawmutex: exploring does
		opt=-O0
		case "$model" in rawmutex.pml | rwlock.pml) opt=-O2 ;; esac
		if [ "$mode" = safety ]; then
			spin -a "$@" "$model" >spin.log 2>&1 || { echo "spin-error"; cat spin.log >&2; exit 1; }
			gcc $opt -w -DSAFETY -o pan pan.c 2>gcc.log || { echo "gcc-error"; exit 1; }
			./pan -m1000000 >pan.out 2>&1
		else
			spin -a -DLTL "$@" "$model" >spin.log 2>&1 || { echo "spin-error"; cat spin.log >&2; exit 1; }
			gcc $opt -w -o pan pan.c 2>gcc.log || { echo "gcc-error"; exit 1; }
			./pan -a -f -m1000000 >pan.out 2>&1
		fi
		states=$(awk '/states, stored/ {print $1; exit}' pan.out)
		depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' pan.out | head -1)
		errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.out | head -1)
		first=$(grep -m1 '^pan:1:' pan.out | sed 's/^pan:1: //; s/ (at depth.*//; s/ /_/g')
		if grep -q 'max search depth too small' pan.out; then first="depth-too-small"; errors=${errors:-1}; fi
		echo "${states:-?} ${depth:-?} ${errors:-?} ${first:--}"
	)
}

fails=0
total=0
printf '%-14s %-48s %-8s %10s %6s %-6s %-28s %s\n' MODEL DEFINES MODE STATES DEPTH ERRORS FIRST-ERROR VERDICT
for c in "${cases[@]}"; do
	IFS='|' read -r model expect defs <<<"$c"
	dir="$work/$total"
	mkdir -p "$dir" && cp "$here"/*.pml "$dir"/
	# shellcheck disable=SC2086
	caught=0
	broken=0
	lines=()
	for mode in safety liveness; do
		read -r states depth errors first <<<"$(verify "$dir" "$mode" $defs)"
		if [ "$errors" != 0 ]; then caught=1; fi
		case "$states" in ''|*[!0-9]*) broken=1 ;; esac
		lines+=("$(printf '%-14s %-48s %-8s %10s %6s %-6s %-28s' "$model" "${defs:--}" "$mode" "$states" "$depth" "$errors" "$first")")
		[ -f "$dir/$model.trail" ] && cp "$dir/$model.trail" "$dir/$model.$mode.trail"
	done
	if [ "$broken" = 1 ]; then
		verdict="BROKEN (spin/gcc failed)"; fails=$((fails + 1))
	elif [ "$expect" = pass ] && [ "$caught" = 0 ]; then
		verdict="ok: no lost wakeup"
	elif [ "$expect" = pass ]; then
		verdict="FAIL: correct model has a counterexample"; fails=$((fails + 1))
	elif [ "$caught" = 1 ]; then
		verdict="ok: bug caught"
	else
		verdict="FAIL: bug variant not caught"; fails=$((fails + 1))
	fi
	for l in "${lines[@]}"; do printf '%s %s\n' "$l" "$verdict"; done
	total=$((total + 1))
done
echo "models: $total cases, $fails unexpected results"
[ "$fails" = 0 ]
