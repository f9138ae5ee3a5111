#!/usr/bin/env bash
# The plugin call's cost: the example plugin's futex parker and TTAS spin
# lock (examples/cplugin/mine.c) from Go threads through cgo (mine-futex,
# mine-spin), from C threads calling its functions (c-mine-*), beside the
# built-in rows (futex, std, c-futex; spin, c-spin), interleaved in one run
# of each experiment. Prints the tables and the load; the difference
# mine-X minus c-mine-X is what the Go harness and the cgo crossings add to
# the same library code.
#   bash scripts/plugin-overhead.sh [--quick]
#
# With --watch, what the watchdog (internal/watch) costs one call instead:
# internal/plugin's benchmarks on testdata/minimal.c (Lock+Unlock and
# Unpark+Park from a Go thread through the trampolines; one iteration of
# lock's C-thread loop), built with the watchdog and without it (-tags
# pbnowatch), and from BASE_REV's tree too when given. Instructions per
# operation by callgrind (they do not depend on the load): on the C side of
# the call, of which the watchdog's, and cgo's checks of pointer arguments
# on the Go side; then ns/op by time, the builds interleaved (these do).
#   bash scripts/plugin-overhead.sh --watch [BASE_REV]
set -euo pipefail
cd "$(dirname "$0")/.."
q=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$q" = --watch ]; then
  base=${2:-}
  command -v valgrind >/dev/null || { echo "plugin-overhead: --watch needs valgrind" >&2; exit 1; }
  gcc -O2 -shared -fPIC -Iinclude -o "$tmp/minimal.so" internal/plugin/testdata/minimal.c
  go test -c -o "$tmp/watch.test" ./internal/plugin
  go test -tags pbnowatch -c -o "$tmp/nowatch.test" ./internal/plugin
  builds=(watch nowatch)
  if [ -n "$base" ]; then
    mkdir "$tmp/base"
    git archive "$base" | tar -x -C "$tmp/base"
    cp internal/plugin/plugin_bench_test.go "$tmp/base/internal/plugin/"
    mkdir -p "$tmp/base/internal/plugin/testdata"
    cp internal/plugin/testdata/minimal.c "$tmp/base/internal/plugin/testdata/"
    sed -i 's/func buildSO(t \*testing.T,/func buildSO(t testing.TB,/' "$tmp/base/internal/plugin/plugin_test.go"
    (cd "$tmp/base" && go test -c -o "$tmp/base.test" ./internal/plugin)
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
    (cd internal/plugin && PB_MINIMAL_SO="$tmp/minimal.so" GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off \
      valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$tmp/$1.test" -test.run='^$' -test.bench="$2" \
      -test.benchtime="$3x" >/dev/null 2>&1)
    callgrind_annotate --threshold=100 "$tmp/cg" 2>/dev/null | python3 -c '
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
        (cd internal/plugin && PB_MINIMAL_SO="$tmp/minimal.so" "$tmp/$v.test" -test.run='^$' -test.bench="$b\$" \
          -test.benchtime=1000000x | awk -v v="$v" '/^Benchmark/ {print v, $3}') >>"$tmp/ns.$b"
      done
    done
    printf '%-28s' "$b"
    for v in "${builds[@]}"; do
      printf ' %10s' "$(awk -v v="$v" '$1 == v {print $2}' "$tmp/ns.$b" | sort -g | sed -n 3p)"
    done
    echo
  done
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
go build -o "$tmp/parkbench" ./cmd/parkbench
gcc -O2 -shared -fPIC -Iinclude -o "$tmp/libmine.so" examples/cplugin/mine.c
grep -m1 'model name' /proc/cpuinfo || true
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
pb() { "$tmp/parkbench" "$@" --plugin "$tmp/libmine.so" $q 2>/dev/null | sed -n "/┌/,/└/p"; }
pb selfwake --impl=mine-futex,c-mine-futex,std,futex,c-futex
pb latency --impl=mine-futex,c-mine-futex,std,futex,c-futex --placement=cross-core
pb lock --impl=mine-spin,c-mine-spin,spin,c-spin --threads=1,2
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
