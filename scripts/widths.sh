#!/usr/bin/env bash
# widths.sh: how wide is what parkbench prints by default? For each command
# (the quick suite, each experiment --quick, list, compare of two files,
# report, and every --help) the widest line in columns and the number of
# lines wider than 120, stdout and stderr together.
#
#   scripts/widths.sh [BINARY] [WORKDIR]
#
# BINARY defaults to a fresh build of ./cmd/parkbench; WORKDIR (default: a
# temporary directory) keeps each command's output as NAME.txt. The
# measuring commands run with --quick, so the whole script takes a few
# minutes on two vCPUs; widths do not depend on the machine's load, the
# figures do not matter here. A command the binary does not have is
# listed as "absent".
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
dir=${2:-$(mktemp -d)}
mkdir -p "$dir"
if [ -z "$bin" ]; then
  bin=$dir/parkbench
  go build -o "$bin" ./cmd/parkbench
fi
export LC_ALL=C.UTF-8

# cols FILE: "max lines>120 lines" in display columns (runes; the output
# has no double-width characters outside markdown).
cols() {
  perl -CSD -ne 'chomp; s/\e\[[0-9;]*[A-Za-z]//g; $l=length; $m=$l if $l>$m; $n++ if $l>120; $t++;
    END { printf "%d %d %d\n", $m+0, $n+0, $t+0 }' "$1"
}

has() { "$bin" "$1" --help >/dev/null 2>&1; }

printf '%-34s %8s %10s %7s\n' "output" "max cols" "lines>120" "lines"
row() { # row NAME FILE
  read -r m n t < <(cols "$2")
  printf '%-34s %8s %10s %7s\n' "$1" "$m" "$n" "$t"
}

measure() { # measure NAME ARGS...: run, keep the output, print its row
  local name=$1; shift
  if ! has "$1"; then printf '%-34s %8s\n' "$name" "absent"; return; fi
  "$bin" "$@" >"$dir/$name.txt" 2>&1 || true
  row "$name" "$dir/$name.txt"
}

measure "run --quick" run --quick --out "$dir/suite.json"
for e in latency selfwake herd lock timeout stacks wake loaded; do
  if [ "$e" = stacks ]; then
    measure "$e" "$e"
  else
    measure "$e --quick" "$e" --quick
  fi
done
measure "list" list
base=$(ls results/*/suite-*.json | head -1)
if [ -f "$dir/suite.json" ]; then
  measure "compare (recorded, quick suite)" compare "$base" "$dir/suite.json"
  measure "report (quick suite)" report "$dir/suite.json"
fi
measure "report (recorded suite)" report "$base"
"$bin" --help >"$dir/help.txt" 2>&1 || true
row "--help" "$dir/help.txt"
for c in $("$bin" --help | awk '/^Available Commands:/{f=1; next} /^$/{f=0} f && /^  [a-z]/{print $1}'); do
  "$bin" "$c" --help >"$dir/help-$c.txt" 2>&1 || true
  row "$c --help" "$dir/help-$c.txt"
done
echo "outputs kept in $dir"
