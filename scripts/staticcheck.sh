#!/usr/bin/env bash
# staticcheck over the whole module (honnef.co/go/tools). Installs it with
# `go install` when it is not on PATH (about a minute); fails on any finding.
# A deliberate exception is annotated where it occurs:
#   //lint:ignore CHECK reason
set -euo pipefail
cd "$(dirname "$0")/.."
gobin=$(go env GOBIN)
gobin=${gobin:-$(go env GOPATH)/bin}
sc=$(command -v staticcheck || true)
if [ -z "$sc" ]; then
  if [ ! -x "$gobin/staticcheck" ]; then
    go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
  fi
  sc="$gobin/staticcheck"
fi
"$sc" -version
"$sc" ./...
