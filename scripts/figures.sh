#!/usr/bin/env bash
# scripts/figures.sh: retake a figure the docs quote, by running parkbench
# the way the doc says and printing what it reads.
#
#   scripts/figures.sh e12 [RUNS] [latency flags...]    docs/findings.md, the E12 targets (default 3 runs)
#   scripts/figures.sh herd-switches [RUNS] [BASE_REV]  docs/findings.md "herd", docs/experiments.md (default 3)
#   scripts/figures.sh goroutines [OUTDIR]              docs/experiments.md, "Goroutines"
#   scripts/figures.sh plugin-overhead [--quick]        docs/plugins.md, the plugin call's cost
#   scripts/figures.sh spin [OUTDIR]                    docs/findings.md, "Spinning before parking", "The idle pool"
#   scripts/figures.sh --smoke                          each on its smallest case, seconds (.ci/run)
#
# e12: on a 2-core machine, cross-core, the Go futex parker's median
#   one-way wake latency within 10% of the C reference's (c-futex), and the
#   Go spin parker's within 10% of c-spin, measured side by side in ONE run
#   (never as a timed unit test: the ratio, not the absolute figure, is
#   what carries across a noisy machine). go-futex / go-spin are the Go
#   twins of the C loops (same protocol, no parker) and futex-raw the
#   RawSyscall wait: they split the gap into what the parker protocol and
#   what the Go scheduler add. The rounds are interleaved (--interleave, 9
#   rounds of 2000 round trips): on a VM the vCPUs move between physical
#   cores and the cross-core floor itself changes (seen here: c-spin 57 ns
#   in one run, 145 ns in the next), so implementations measured one after
#   the other are not comparable; round-robin rounds give each the same mix
#   of host states. RUNS separate runs; each prints its ratios
#   (scripts/cmd/e12ratios), then the median over runs. Extra flags go to
#   parkbench latency after the script's own (the last one given wins).
# herd-switches: where the herd's context switches come from. Runs
#   `parkbench herd --waiters=64 --impl=lot,futex-broadcast,futex-requeue`
#   RUNS times and prints, per implementation, the participants' context
#   switches (median over the 5 repeats) and their phases: before the
#   notify (each waiter's park, one apiece, plus whatever its way into the
#   wait cost), from the notify to holding the mutex, and the hold and
#   release; the involuntary part of each in parentheses. With BASE_REV (a
#   git revision, e.g. 509d69b) the same command of that revision runs
#   before each run of this tree, built from `git archive` in a temporary
#   directory, and its totals are printed beside (an older tree has no
#   phases).
# goroutines: threads against goroutines: `parkbench latency
#   --impl=chan,cond,lot --participants=threads,goroutines --gomaxprocs=1,2`
#   and `parkbench lock --participants=goroutines --impl=sync,lot
#   --threads=2,8`; keeps both results (JSON) in OUTDIR (default: a
#   temporary directory), prints the load before each, the tables
#   (parkbench report) and, per goroutine configuration, the traced wake
#   shares. Changes nothing in the kernel. About 2 minutes on a quiet
#   2-vCPU guest.
# plugin-overhead: the example plugin's futex parker and TTAS spin lock
#   (examples/cplugin/mine.c) from Go threads through cgo (mine-futex,
#   mine-spin), from C threads calling its functions (c-mine-*), beside
#   the built-in rows (futex, std, c-futex; spin, c-spin), interleaved in
#   one run of each experiment. Prints the tables and the load; the
#   difference mine-X minus c-mine-X is what the Go harness and the cgo
#   crossings add to the same library code. Needs gcc.
# spin: parkbench spin (the default run) and parkbench herd --mode=idle
#   (N = 16, then the default N = 1, 4, 16, 64), with the CPU and the load
#   before each, their tables, the plot; keeps the results (JSON) and
#   spin.svg in OUTDIR (default: a temporary directory). Changes nothing in
#   the kernel. About a minute and a half on a 2-vCPU guest.
#
# Each prints the CPU and the load with its figures; run them on a quiet
# machine for figures to quote. --smoke runs each with the fewest rounds
# and samples parkbench takes: the figures mean nothing, the script works.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "figures: $*" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pb=$work/parkbench
build() { [ -x "$pb" ] || go build -o "$pb" ./cmd/parkbench; }
loadline() { echo "load $1: $(cut -d' ' -f1-3 /proc/loadavg)"; }

# The sizes --smoke shrinks: extra flags after each command's own.
herd_size=() goroutines_latency=() goroutines_lock=() plugin_selfwake=() plugin_latency=() plugin_lock=()
spin_size=() idle_size=()

e12() { # [RUNS] [latency flags...]
	local runs=${1:-3} i
	shift || true
	case $runs in '' | *[!0-9]* | 0) die "e12: RUNS must be a whole number above 0, not '$runs'" ;; esac
	build
	go build -o "$work/e12ratios" ./scripts/cmd/e12ratios
	for i in $(seq 1 "$runs"); do
		echo "== run $i/$runs"
		"$pb" latency --impl=futex,c-futex,spin,c-spin,futex-raw,go-futex,go-spin \
			--placement=cross-core --interleave --rounds=9 --iterations=2000 \
			--format=json --quiet "$@" >"$work/run$i.json"
		"$work/e12ratios" "$work/run$i.json"
	done
	if [ "$runs" -gt 1 ]; then
		"$work/e12ratios" "$work"/run*.json | sed -n '/^median over/,$p'
	fi
}

herd_switches() { # [RUNS] [BASE_REV]
	local runs=${1:-3} base=${2:-} i cmd
	build
	if [ -n "$base" ]; then
		mkdir "$work/base"
		git archive "$base" | tar -x -C "$work/base"
		(cd "$work/base" && go build -o "$work/parkbench-base" ./cmd/parkbench)
	fi
	cmd=(herd --waiters=64 --impl=lot,futex-broadcast,futex-requeue --quiet --format=json "${herd_size[@]}")
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
	loadline before
	for i in $(seq 1 "$runs"); do
		echo "== run $i/$runs"
		if [ -n "$base" ]; then
			"$work/parkbench-base" "${cmd[@]}" >"$work/base$i.json"
			summarize "$work/base$i.json" base
		fi
		"$pb" "${cmd[@]}" >"$work/run$i.json"
		summarize "$work/run$i.json" now
	done
	loadline after
}

goroutines() { # [OUTDIR]
	local out=${1:-$work}
	mkdir -p "$out"
	build
	grep -m1 'model name' /proc/cpuinfo || true
	loadline "before latency"
	"$pb" latency --impl=chan,cond,lot --participants=threads,goroutines --gomaxprocs=1,2 --quiet --format=json \
		--out "$out/latency.json" "${goroutines_latency[@]}" >/dev/null
	loadline "before lock"
	"$pb" lock --participants=goroutines --impl=sync,lot --threads=2,8 --quiet --format=json \
		--out "$out/lock.json" "${goroutines_lock[@]}" >/dev/null
	loadline after
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
}

plugin_overhead() { # [--quick]
	local q=${1:-}
	case $q in '' | --quick) ;; *) die "plugin-overhead: unknown argument $q (--quick)" ;; esac
	build
	gcc -O2 -shared -fPIC -Iinclude -o "$work/libmine.so" examples/cplugin/mine.c
	grep -m1 'model name' /proc/cpuinfo || true
	loadline before
	# shellcheck disable=SC2086 # $q is one flag or none
	run() { "$pb" "$@" --plugin "$work/libmine.so" $q 2>/dev/null | sed -n "/┌/,/└/p"; }
	run selfwake --impl=mine-futex,c-mine-futex,std,futex,c-futex "${plugin_selfwake[@]}"
	run latency --impl=mine-futex,c-mine-futex,std,futex,c-futex --placement=cross-core "${plugin_latency[@]}"
	run lock --impl=mine-spin,c-mine-spin,spin,c-spin --threads=1,2 "${plugin_lock[@]}"
	loadline after
}

spin() { # [OUTDIR]
	local out=${1:-$work}
	mkdir -p "$out"
	build
	grep -m1 'model name' /proc/cpuinfo || true
	grep -m1 'cpu family' /proc/cpuinfo || true
	grep -m1 '^model[[:space:]]' /proc/cpuinfo || true
	loadline "before spin"
	"$pb" spin --quiet --format=json --out "$out/spin.json" "${spin_size[@]}" >/dev/null
	loadline "before herd --mode=idle --waiters=16"
	"$pb" herd --mode=idle --waiters=16 --quiet --format=json --out "$out/herd-idle-16.json" "${idle_size[@]}" >/dev/null
	loadline "before herd --mode=idle"
	"$pb" herd --mode=idle --quiet --format=json --out "$out/herd-idle.json" "${idle_size[@]}" >/dev/null
	loadline after
	"$pb" report "$out/spin.json" "$out/herd-idle-16.json" "$out/herd-idle.json"
	"$pb" plot "$out/spin.json" --out "$out/spin.svg"
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
cmd=$1
shift
case $cmd in
e12) e12 "$@" ;;
herd-switches) herd_switches "$@" ;;
goroutines) goroutines "$@" ;;
plugin-overhead) plugin_overhead "$@" ;;
spin) spin "$@" ;;
--smoke)
	[ $# = 0 ] || die "--smoke takes no arguments"
	herd_size=(--waiters=8 --repeats=1)
	goroutines_latency=(--iterations=200 --warmup=50 --rounds=1)
	goroutines_lock=(--duration=50ms --repeats=1)
	plugin_selfwake=(--samples=20 --rounds=1)
	plugin_latency=(--iterations=200 --warmup=50 --rounds=1)
	plugin_lock=(--duration=50ms --repeats=1)
	spin_size=(--quick --rounds=1 --waits=5 --warmup=2 --pingpong=10)
	idle_size=(--repeats=1)
	for c in e12 herd-switches goroutines plugin-overhead spin; do
		t0=$SECONDS
		echo "== figures.sh $c, smallest case"
		case $c in
		e12) e12 1 --rounds=2 --iterations=200 --warmup=50 ;;
		herd-switches) herd_switches 1 ;;
		goroutines) goroutines ;;
		plugin-overhead) plugin_overhead ;;
		spin) spin ;;
		esac
		echo "figures.sh $c: ok ($((SECONDS - t0))s)"
	done
	;;
-h | --help) usage ;;
*) die "unknown figure '$cmd' (e12, herd-switches, goroutines, plugin-overhead, spin, --smoke)" ;;
esac
