#!/usr/bin/env bash
# html-check.sh: check `parkbench report --format=html` in a real browser
# (headless Chromium, a window 1280 px wide): the page is self-contained,
# and what the browser lays out shows every machine, every summary, every
# experiment, every plot drawn and every verdict; no plot's legend lies over
# a panel or another legend, and legends are 11 px or more
# (scripts/cmd/htmlcheck says what it asserts). It prints each page's
# height and, per plot, the lines per panel and the legend's type size. The
# recorded suite alone must fit 15,000 px with at most 8 lines a panel.
#
#   scripts/html-check.sh [OUTDIR]
#
# OUTDIR (default: a temporary directory) keeps the page, the browser's DOM
# and a screenshot. Chromium is installed with apt-get when it is missing
# and this runs as root; when it cannot be, the check is skipped with a
# note (exit 0): the page's renderer is still tested by go test.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"

find_chromium() { command -v chromium || command -v chromium-browser || command -v google-chrome || true; }
browser=$(find_chromium)
if [ -z "$browser" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "html-check: installing chromium"
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || true
	browser=$(find_chromium)
fi
if [ -z "$browser" ]; then
	echo "html-check: SKIPPED: no Chromium here and it could not be installed; the HTML report was not checked in a browser"
	exit 0
fi
"$browser" --version 2>/dev/null | head -1 || true

go build -o "$out/parkbench" ./cmd/parkbench
# The detector itself, in this browser: synthetic pages that must pass and must fail.
go test -count=1 -run 'TestSyntheticPages|TestLegendFaults|TestMaxHeight' ./scripts/cmd/htmlcheck/
# Two machine classes side by side: a recorded suite and a fixture of another machine;
# and a recorded latency --anatomy run (its stacked bars of the wake's components).
recorded=$(ls results/*/suite-*.json | head -1)
anatomy=internal/compare/testdata/anatomy-amd-f25m17.json
go build -o "$out/htmlcheck" ./scripts/cmd/htmlcheck
"$out/htmlcheck" -parkbench "$out/parkbench" -chromium "$browser" -out "$out" -max-lines 8 \
	"$recorded" internal/results/testdata/v1-suite.json "$anatomy"
"$out/htmlcheck" -parkbench "$out/parkbench" -chromium "$browser" -out "$out/suite" -max-height 15000 -max-lines 8 \
	results/linux-amd64-2cpu-amd-epyc-f25m17-vm/suite-20261203T122006Z.json
