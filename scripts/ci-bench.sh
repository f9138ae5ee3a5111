#!/usr/bin/env bash
# ci-bench.sh: build parkbench, run the quick suite, report it, and compare
# it with the newest recorded baseline for this machine class
# (results/<machine-slug>/). Portable bash (3.2 on macOS, Git Bash on
# Windows): no associative arrays, no mapfile, no GNU-only flags.
#
# Usage: scripts/ci-bench.sh [options]
#   --gate=noise-tolerant  (default) noise alone cannot fail the build: exit 0
#                          whatever the verdicts, but a broken or unreadable
#                          result (missing file, schema failure, report or
#                          compare exit 2) fails.
#   --gate=strict          exit with compare's status: 1 on a regression.
#   --out DIR              where the result, the report and the comparison go
#                          (default: a new temporary directory).
#   --results DIR          the recorded results (default: <repo>/results).
#   --baseline FILE        compare with FILE instead of the newest baseline.
#   --result FILE          do not run: report and compare FILE (for testing
#                          the script, or re-judging a result).
#   --parkbench BIN        use BIN instead of building cmd/parkbench.
#   --record               also record the result under --results (never
#                          overwrites); only with a real run.
#   --threshold PCT        passed to compare (default: compare's, 10%).
#   --benchstat            also show benchstat's view (go run, needs the
#                          module proxy or cache).
#
# Output: markdown on stdout, appended to $GITHUB_STEP_SUMMARY when set;
# files in --out: suite.json, report.md, compare.md (and benchstat.txt).
set -eu
set -o pipefail

gate=noise-tolerant
out=""
results_dir=""
baseline=""
result=""
bin=""
record=0
threshold=""
benchstat=0
benchstat_mod="golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

die() { echo "ci-bench: $*" >&2; exit 2; }
need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--gate=*) gate="${1#--gate=}" ;;
	--gate) need_arg "$@"; gate="$2"; shift ;;
	--out=*) out="${1#--out=}" ;;
	--out) need_arg "$@"; out="$2"; shift ;;
	--results=*) results_dir="${1#--results=}" ;;
	--results) need_arg "$@"; results_dir="$2"; shift ;;
	--baseline=*) baseline="${1#--baseline=}" ;;
	--baseline) need_arg "$@"; baseline="$2"; shift ;;
	--result=*) result="${1#--result=}" ;;
	--result) need_arg "$@"; result="$2"; shift ;;
	--parkbench=*) bin="${1#--parkbench=}" ;;
	--parkbench) need_arg "$@"; bin="$2"; shift ;;
	--threshold=*) threshold="${1#--threshold=}" ;;
	--threshold) need_arg "$@"; threshold="$2"; shift ;;
	--record) record=1 ;;
	--benchstat) benchstat=1 ;;
	-h | --help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done

case "$gate" in
noise-tolerant | strict) ;;
*) die "invalid --gate=$gate: noise-tolerant or strict" ;;
esac
if [ "$record" = 1 ] && [ -n "$result" ]; then
	die "--record records a fresh run; it cannot be used with --result"
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$results_dir" ] || results_dir="$repo/results"
if [ -z "$out" ]; then
	out=$(mktemp -d 2>/dev/null || mktemp -d -t parkbench)
fi
mkdir -p "$out"

summary() {
	# Append stdin to the job summary when there is one; always print it.
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		tee -a "$GITHUB_STEP_SUMMARY"
	else
		cat
	fi
}

broken() {
	# A broken result fails every gate.
	printf '\n**ci-bench: %s**\n' "$*" | summary
	echo "ci-bench: $*" >&2
	exit 2
}

if [ -z "$bin" ]; then
	exe=$(cd "$repo" && go env GOEXE)
	bin="$out/parkbench$exe"
	echo "ci-bench: building $bin" >&2
	(cd "$repo" && go build -o "$bin" ./cmd/parkbench) || broken "go build failed"
fi
[ -x "$bin" ] || broken "parkbench binary $bin is missing"

if [ -z "$result" ]; then
	result="$out/suite.json"
	rec=""
	if [ "$record" = 1 ]; then
		rec="--record=$results_dir"
	fi
	echo "ci-bench: $bin run --quick --out $result $rec" >&2
	# shellcheck disable=SC2086 # rec is one word or none
	"$bin" run --quick --quiet --format=table --out "$result" $rec >"$out/run.txt" ||
		broken "parkbench run --quick failed (exit $?); see $out/run.txt"
fi
[ -f "$result" ] || broken "no result file $result"

# The report doubles as the check that the result is readable and valid.
status=0
"$bin" report --format=markdown "$result" >"$out/report.md" 2>"$out/report.err" || status=$?
if [ "$status" != 0 ]; then
	broken "the result is unreadable (report exit $status): $(cat "$out/report.err")"
fi
{
	echo "## parkbench quick suite"
	echo
	cat "$out/report.md"
} | summary

# The machine class, from the result itself: the first "slug" is machine.slug.
slug=$(grep -m1 '"slug"' "$result" | sed 's/.*"slug": *"\([^"]*\)".*/\1/')
[ -n "$slug" ] || broken "no machine slug in $result"

if [ -z "$baseline" ]; then
	dir="$results_dir/$slug"
	# Recorded names end in a UTC timestamp, so name order is time order;
	# prefer suites (what this script runs), else any recording.
	if [ -d "$dir" ]; then
		baseline=$(ls "$dir"/suite-*.json 2>/dev/null | sort | tail -n 1 || true)
		if [ -z "$baseline" ]; then
			baseline=$(ls "$dir"/*.json 2>/dev/null | sed 's/.*-\([0-9TZ]*\)\.json$/\1 &/' | sort | tail -n 1 | cut -d' ' -f2- || true)
		fi
	fi
fi
if [ -n "$baseline" ] && [ "$(cd "$(dirname "$baseline")" && pwd)/$(basename "$baseline")" = "$(cd "$(dirname "$result")" && pwd)/$(basename "$result")" ]; then
	baseline="" # just recorded: comparing a file with itself says nothing
fi
if [ -z "$baseline" ]; then
	printf '\nNo baseline for machine class `%s` under %s: comparison skipped. Record one with `parkbench run --record results` on this machine class.\n' "$slug" "$results_dir" | summary
	exit 0
fi
[ -f "$baseline" ] || broken "baseline $baseline does not exist"

args="--format=markdown"
if [ -n "$threshold" ]; then
	args="$args --threshold=$threshold"
fi
status=0
# shellcheck disable=SC2086 # args are separate words without spaces
"$bin" compare $args "$baseline" "$result" >"$out/compare.md" 2>"$out/compare.err" || status=$?
case "$status" in
0 | 1) ;;
*) broken "compare failed (exit $status): $(cat "$out/compare.err")" ;;
esac
{
	echo
	echo "## parkbench compare with the baseline"
	echo
	cat "$out/compare.md"
} | summary

if [ "$benchstat" = 1 ]; then
	"$bin" report --format=benchstat "$baseline" >"$out/base.bench"
	"$bin" report --format=benchstat "$result" >"$out/new.bench"
	if (cd "$repo" && go run "$benchstat_mod" "$out/base.bench" "$out/new.bench") >"$out/benchstat.txt" 2>&1; then
		{
			echo
			echo "<details><summary>benchstat</summary>"
			echo
			echo '```'
			cat "$out/benchstat.txt"
			echo '```'
			echo "</details>"
		} | summary
	else
		echo "ci-bench: benchstat unavailable: $(tail -n 1 "$out/benchstat.txt")" >&2
	fi
fi

if [ "$status" = 1 ]; then
	echo "ci-bench: compare found a regression: $(cat "$out/compare.err")" >&2
	if [ "$gate" = strict ]; then
		exit 1
	fi
	echo "ci-bench: --gate=noise-tolerant: not failing the build on verdicts" >&2
fi
exit 0
