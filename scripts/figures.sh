#!/usr/bin/env bash
# scripts/figures.sh: retake a figure the docs quote, by running parkbench
# the way the doc says and printing what it reads.
#
#   scripts/figures.sh e12 [RUNS] [latency flags...]    docs/findings.md, the E12 targets (default 3 runs)
#   scripts/figures.sh herd-switches [RUNS] [BASE_REV]  docs/findings.md "herd", docs/experiments.md (default 3)
#   scripts/figures.sh goroutines [OUTDIR]              docs/experiments.md, "Goroutines"
#   scripts/figures.sh plugin-overhead [--quick]        docs/plugins.md, the plugin call's cost
#   scripts/figures.sh plugin-overhead --watch [BASE]   docs/plugins.md, the watchdog's cost (valgrind)
#   scripts/figures.sh spin [OUTDIR]                    docs/findings.md, "Spinning before parking", "The idle pool"
#   scripts/figures.sh anatomy [REPS]                   docs/anatomy.md, "Memory" and "Probe effect" (root)
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
# plugin-overhead --watch: what the watchdog (internal/watch) costs one call instead:
#   internal/plugin's benchmarks on testdata/minimal.c (Lock+Unlock and
#   Unpark+Park from a Go thread through the trampolines; one iteration of
#   lock's C-thread loop), built with the watchdog and without it (-tags
#   pbnowatch), and from BASE_REV's tree too when given. Instructions per
#   operation by callgrind (they do not depend on the load): on the C side of
#   the call, of which the watchdog's, and cgo's checks of pointer arguments
#   on the Go side; then ns/op by time, the builds interleaved (these do).
# anatomy: the anatomy's two targets (docs/anatomy.md, "Memory" and "Probe
#   effect"). Peak resident size (/usr/bin/time's maximum RSS) of
#   `parkbench latency --anatomy` for 1 configuration (futex cross-core), 4
#   (futex,c-futex,lot,std cross-core) and all (the defaults); then REPS
#   times `parkbench latency --impl=futex,c-futex,lot --placement=cross-core
#   --anatomy` with the eBPF recorder and, alternated with it, the perf one
#   (PARKBENCH_ANATOMY_RECORDER=perf): per configuration the probe effect
#   (traced rounds' median against the untraced rounds', interleaved in each
#   run), and per recorder the median over the repetitions. About 8 minutes
#   on the 2-vCPU guest (the default run is 5 of them).
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

plugin_overhead() { # [--quick | --watch [BASE_REV]]
	local q=${1:-}
	if [ "$q" = --watch ]; then
		plugin_watch "${@:2}"
		return
	fi
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

plugin_watch() { # [BASE_REV]
	local base=${1:-}
	command -v valgrind >/dev/null || die "plugin-overhead --watch needs valgrind"
	gcc -O2 -shared -fPIC -Iinclude -o "$work/minimal.so" internal/plugin/testdata/minimal.c
	go test -c -o "$work/watch.test" ./internal/plugin
	go test -tags pbnowatch -c -o "$work/nowatch.test" ./internal/plugin
	local builds=(watch nowatch) b v i side watch check
	if [ -n "$base" ]; then
		mkdir "$work/base"
		git archive "$base" | tar -x -C "$work/base"
		cp internal/plugin/plugin_bench_test.go "$work/base/internal/plugin/"
		mkdir -p "$work/base/internal/plugin/testdata"
		cp internal/plugin/testdata/minimal.c "$work/base/internal/plugin/testdata/"
		sed -i 's/func buildSO(t \*testing.T,/func buildSO(t testing.TB,/' "$work/base/internal/plugin/plugin_test.go"
		(cd "$work/base" && go test -c -o "$work/base.test" ./internal/plugin)
		builds+=(base)
	fi
	# Go's cputicks uses RDTSCP where the CPU has it, which valgrind 3.19
	# cannot run: cpu.rdtscp=off makes it take the other path. The Go side of
	# a cgo call (runtime.cgocall, entersyscall, exitsyscall) takes another
	# path when sysmon retook the P meanwhile, which depends on time; its C
	# side does not: the cgo wrapper with the trampoline inlined, the
	# watchdog's stores (watch.h), the library's function; for the C-thread
	# loop, the loop, its tick and the library's lock and unlock.
	ir() { # BUILD BENCH N: "C-side watch.h pointer-checks" instructions per op
		(cd internal/plugin && PB_MINIMAL_SO="$work/minimal.so" GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off \
			valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$work/$1.test" -test.run='^$' -test.bench="$2" \
			-test.benchtime="$3x" >/dev/null 2>&1)
		callgrind_annotate --threshold=100 "$work/cg" 2>/dev/null | python3 -c '
import re, sys
n = int(sys.argv[1]) + 1  # the benchmark runs once with b.N = 1 first
side = watch = check = 0
for line in sys.stdin:
    if line.startswith("-- Auto-annotated"):
        break
    m = re.match(r"\s*([0-9,]+) \(\s*[0-9.]+%\)  (.+?)( \[[^]]*\])?$", line.rstrip("\n"))
    if not m:
        continue
    ir, where, obj = int(m.group(1).replace(",", "")), m.group(2), m.group(3) or ""
    fn = where.split(":", 1)[-1]
    if re.search(r"runtime\.(cgoCheck|cgoIsGoPointer|inHeapOrStack)", fn):
        check += ir
    if re.match(r"_cgo_[0-9a-f]+_Cfunc_(pbl_|pb_lk_uncontended_ns)", fn) or fn == "pb_lk_uncontended_ns" or "minimal.so" in obj:
        side += ir
        if "watch.h" in where:
            watch += ir
print("%.1f %.1f %.1f" % (side / n, watch / n, check / n))' "$3"
	}
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "instructions per op, by callgrind: the C side of the call (in it, the watchdog's, watch.h) / cgo's pointer checks"
	printf '%-28s' ""; printf ' %22s' "${builds[@]}"; echo
	for b in GoCalledLockUnlock GoCalledSelfwake CThreadLockLoop; do
		printf '%-28s' "$b"
		for v in "${builds[@]}"; do
			read -r side watch check < <(ir "$v" "$b\$" 200000)
			printf ' %22s' "$side ($watch) / $check"
		done
		echo
	done
	printf '%-28s' "ns per op (median of 5)"; printf ' %10s' "${builds[@]}"; echo
	for b in GoCalledLockUnlock GoCalledSelfwake CThreadLockLoop; do
		for i in 1 2 3 4 5; do
			for v in "${builds[@]}"; do
				(cd internal/plugin && PB_MINIMAL_SO="$work/minimal.so" "$work/$v.test" -test.run='^$' -test.bench="$b\$" \
					-test.benchtime=1000000x | awk -v v="$v" '/^Benchmark/ {print v, $3}') >>"$work/ns.$b"
			done
		done
		printf '%-28s' "$b"
		for v in "${builds[@]}"; do
			printf ' %10s' "$(awk -v v="$v" '$1 == v {print $2}' "$work/ns.$b" | sort -g | sed -n 3p)"
		done
		echo
	done
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

anatomy() { # [REPS]
	local reps=${1:-3} spec name kb secs n i rec
	[[ "$reps" =~ ^[1-9][0-9]?$ ]] || die "anatomy: REPS must be 1 to 99, not '$reps'"
	[ -x /usr/bin/time ] || die "anatomy needs /usr/bin/time (apt-get install time)"
	[ "$(id -u)" = 0 ] || die "anatomy needs root (the eBPF and perf recorders)"
	command -v jq >/dev/null || die "anatomy needs jq (apt-get install jq)"
	build
	echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') (family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')), $(nproc) CPUs, $(uname -r)"
	echo "peak resident size of parkbench latency --anatomy (/usr/bin/time, maximum RSS):"
	for spec in "1|--impl=futex --placement=cross-core" "4|--impl=futex,c-futex,lot,std --placement=cross-core" "all|"; do
		name=${spec%%|*}
		# shellcheck disable=SC2086 # the spec is words
		/usr/bin/time -f '%M %e' -o "$work/time.txt" "$work/parkbench" latency ${spec#*|} --anatomy -q -o "$work/mem.json" >/dev/null
		read -r kb secs <"$work/time.txt"
		n=$(jq '.experiments[0].configs | length' "$work/mem.json")
		echo "  $name: $n configurations, peak $((kb / 1024)) MB, ${secs} s (load $(cut -d' ' -f1 /proc/loadavg))"
	done
	echo "probe effect of --anatomy, cross-core (traced rounds' median / untraced rounds' median - 1, each run's rounds interleaved):"
	for i in $(seq "$reps"); do
		for rec in ebpf perf; do
			PARKBENCH_ANATOMY_RECORDER=$rec "$work/parkbench" latency --impl=futex,c-futex,lot --placement=cross-core --anatomy -q \
				-o "$work/probe-$rec-$i.json" >/dev/null
			jq -r --arg rec "$rec" --arg i "$i" --arg load "$(cut -d' ' -f1 /proc/loadavg)" '"  run \($i) \($rec):" +
				([.experiments[0].configs[] | .summary as $s | " \(.impl) " +
					(if $s.anatomy_probe_effect then ($s.anatomy_probe_effect | (if . >= 0 then "+" else "" end) + ((. * 1000 | round) / 10 | tostring) + "%") else "-" end) +
					" (\(($s.anatomy_traced_median_ns // 0) / 10 | round / 100)/\(($s.median_slept_ns // 0) / 10 | round / 100) µs)"] | join(",")) +
				" load \($load)"' "$work/probe-$rec-$i.json"
		done
	done
	for rec in ebpf perf; do
		jq -rs --arg rec "$rec" 'def pct: (if . >= 0 then "+" else "" end) + ((. * 1000 | round) / 10 | tostring) + "%";
			[.[].experiments[0].configs[] | {impl, p: .summary.anatomy_probe_effect}] | group_by(.impl) |
			map(([.[].p | select(. != null)] | sort) as $s | .[0].impl + " " +
				(if ($s | length) > 0 then ($s[(($s | length) - 1) / 2 | floor] | pct) + " (max " + ($s[-1] | pct) + ")" else "-" end)) |
			"  median over the runs, \($rec): " + join(", ")' "$work"/probe-"$rec"-*.json
	done
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
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
anatomy) anatomy "$@" ;;
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
*) die "unknown figure '$cmd' (e12, herd-switches, goroutines, plugin-overhead, spin, anatomy, --smoke)" ;;
esac
