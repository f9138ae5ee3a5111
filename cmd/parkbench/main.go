// Command parkbench measures how long it takes to put a thread to sleep and
// wake it up, by every mechanism real synchronisation libraries use.
//
// The commands live in internal/cli (so that the public package bench can
// build the same command line around a Go program's own implementations);
// this is only the program's entry point.
package main

import (
	"os"

	"github.com/parkbench/parkbench/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
