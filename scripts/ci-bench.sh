#!/usr/bin/env bash
# ci-bench.sh: two jobs.
#
# The regression gate (--base=REV): build REV in a temporary git worktree and
# the working tree, and run `parkbench ab BASE NEW` on this machine: a
# same-run A/B with a measured false-alarm rate (docs/gate.md). Strict: its
# exit status is ab's (0 no regression, 1 a regression, 2 bad input); a REV
# that does not build fails the gate (1) with a message; a REV this clone
# does not have because it is shallow (no parent commit) is a visible
# message and exit 0.
#
# The recorded-baseline view (without --base): run the quick suite, report
# it, and compare it with the newest recorded result of this machine class
# under results/ (for trends and cross-machine views; not the gate: a file
# measured on another day carries that day's drift). The first line says
# which baseline and why, or that there is none.
#
# Portable bash (3.2 on macOS, Git Bash on Windows): no associative arrays,
# no mapfile, no GNU-only flags.
#
# Usage: scripts/ci-bench.sh [options]
#   --base REV             run the regression gate against REV (e.g. HEAD^);
#                          --parkbench BIN is then the new binary, and
#                          --ab-args "ARGS" passes options to ab.
#   --gate=noise-tolerant  (default without --base) noise alone cannot fail
#                          the build: exit 0 whatever the verdicts, but a
#                          broken or unreadable result (missing file, schema
#                          failure, report or compare exit 2) fails.
#   --gate=strict          the regression gate: needs --base (what --base
#                          does anyway). Without --base it is refused: a
#                          run judged against a result recorded at another
#                          time read REGRESSION for unchanged code in 3 of 3
#                          runs (docs/gate.md), so it cannot fail a build.
#                          To fail on a comparison of files, use parkbench
#                          compare (exit 1 a regression, 3 no baseline).
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
# files in --out: suite.json, report.md, compare.md (and benchstat.txt);
# with --base: ab.md and ab.json (every trial), base and new binaries.
set -eu
set -o pipefail

gate=noise-tolerant
base_rev=""
ab_args=""
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
	--base=*) base_rev="${1#--base=}" ;;
	--base) need_arg "$@"; base_rev="$2"; shift ;;
	--ab-args=*) ab_args="${1#--ab-args=}" ;;
	--ab-args) need_arg "$@"; ab_args="$2"; shift ;;
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
	-h | --help) sed -n '2,52p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done

case "$gate" in
noise-tolerant | strict) ;;
*) die "invalid --gate=$gate: noise-tolerant or strict" ;;
esac
if [ "$gate" = strict ] && [ -z "$base_rev" ]; then
	die "--gate=strict is the regression gate, a same-run A/B: give --base REV (HEAD^ in CI). Without --base this script judges a run against a result recorded at another time, a view that read REGRESSION for unchanged code in 3 of 3 runs on this project's VM (docs/gate.md); to fail on a comparison of files, use parkbench compare (exit 1 on a regression, 3 with no baseline)"
fi
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
	(cd "$repo" && go build -buildvcs=auto -o "$bin" ./cmd/parkbench) || broken "go build failed"
fi
[ -x "$bin" ] || broken "parkbench binary $bin is missing"

if [ -n "$base_rev" ]; then
	# The regression gate: REV's binary against this tree's, same machine,
	# same time, interleaved (parkbench ab).
	[ -z "$result" ] && [ "$record" = 0 ] && [ -z "$baseline" ] ||
		die "--base runs the A/B gate; --result, --record and --baseline belong to the recorded-baseline view"
	if ! rev=$(cd "$repo" && git rev-parse --verify --quiet "$base_rev^{commit}"); then
		if [ "$(cd "$repo" && git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
			printf '\n**parkbench gate: skipped: %s is not in this shallow clone (no parent commit to compare with); fetch more history to gate this change.**\n' "$base_rev" | summary
			echo "ci-bench: gate skipped: $base_rev not in this shallow clone" >&2
			exit 0
		fi
		die "--base $base_rev: not a revision of $repo"
	fi
	wt="$out/base-src"
	cleanup() { (cd "$repo" && git worktree remove --force "$wt" >/dev/null 2>&1) || true; }
	trap cleanup EXIT
	exe=$(cd "$repo" && go env GOEXE)
	base_bin="$out/parkbench-base$exe"
	echo "ci-bench: building the base $base_rev ($rev) in a git worktree" >&2
	(cd "$repo" && git worktree add --detach --force "$wt" "$rev" >/dev/null 2>"$out/worktree.err") ||
		broken "git worktree add $base_rev failed: $(cat "$out/worktree.err")"
	if ! (cd "$wt" && go build -buildvcs=auto -o "$base_bin" ./cmd/parkbench) >"$out/base-build.txt" 2>&1; then
		printf '\n**parkbench gate: FAILED: the base revision %s (%s) does not build, so this change cannot be gated against it:**\n\n```\n%s\n```\n' \
			"$base_rev" "$rev" "$(tail -n 20 "$out/base-build.txt")" | summary
		echo "ci-bench: the base $base_rev does not build; see $out/base-build.txt" >&2
		exit 1
	fi
	status=0
	# shellcheck disable=SC2086 # ab_args are separate words
	"$bin" ab --format=markdown --out "$out/ab.json" $ab_args "$base_bin" "$bin" >"$out/ab.md" || status=$?
	{
		echo "## parkbench gate: A/B against $base_rev ($(printf '%.12s' "$rev"))"
		echo
		cat "$out/ab.md"
	} | summary
	case "$status" in
	0) ;;
	1) echo "ci-bench: the gate found a regression against $base_rev" >&2 ;;
	*) echo "ci-bench: the gate could not run (ab exit $status)" >&2 ;;
	esac
	exit "$status"
fi

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

# The baseline: given, or the newest recorded result of this machine class
# (compare finds it by class, never this run's own recorded copy, and says
# which and why on its first line; exit 3: there is none).
args="--format=markdown"
if [ -n "$threshold" ]; then
	args="$args --threshold=$threshold"
fi
against="$results_dir"
if [ -n "$baseline" ]; then
	[ -f "$baseline" ] || broken "baseline $baseline does not exist"
	against="$baseline"
fi
status=0
# shellcheck disable=SC2086 # args are separate words without spaces
"$bin" compare $args "$against" "$result" >"$out/compare.md" 2>"$out/compare.err" || status=$?
case "$status" in
0 | 1)
	if [ -n "$baseline" ]; then
		first="Baseline: \`$baseline\` (given with --baseline)."
	else
		first="Baseline: $(head -n 1 "$out/compare.md" | sed 's/^baseline: //')"
		tail -n +2 "$out/compare.md" >"$out/compare.body" && mv "$out/compare.body" "$out/compare.md"
	fi
	;;
3)
	first="**No baseline**: $(head -n 1 "$out/compare.md" | sed 's/^no baseline: //'). Record one with \`parkbench run --record results\` on this machine class."
	;;
*) broken "compare failed (exit $status): $(cat "$out/compare.err")" ;;
esac
{
	echo "$first"
	echo
	echo "## parkbench quick suite"
	echo
	cat "$out/report.md"
} | summary
if [ "$status" = 3 ]; then
	exit 0
fi
baseline=$(printf '%s\n' "$first" | sed -n 's/^Baseline: `\{0,1\}\([^ `]*\).*/\1/p') # paths under results/ have no spaces
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
	echo "ci-bench: the recorded-baseline view: not failing the build on verdicts (the gate is --base)" >&2
fi
exit 0
