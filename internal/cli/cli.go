// Package cli is parkbench's command line: the cobra commands, their flags
// and the rendering of what the experiments return. cmd/parkbench calls
// Main; the public package bench calls it too, after registering a Go
// program's implementations, so that program gets the same commands.
//
// Each command file registers its constructor from init (register); the
// experiments' commands are experiments.go, one constructor each, with
// their texts in help/<command>.txt (see internal/experiments/driver's
// doc for what a new experiment adds).
package cli

import "io"

// Main runs parkbench with args (without the program name) on the process's
// stdout and stderr and returns the exit status: 0, 1 (a failed run or a
// regression), 2 (bad input), 130 (interrupted). It owns the process's
// SIGINT and SIGTERM while it runs (common.go, "Signals").
func Main(args []string) int { return execute(args) }

// MainTo is Main writing to stdout and stderr.
func MainTo(args []string, stdout, stderr io.Writer) int {
	defer installInterrupts()()
	return executeTo(args, stdout, stderr)
}
