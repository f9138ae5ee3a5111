package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailed      = 1 // a run failed, or compare found a regression
	exitUsage       = 2 // bad input
	exitInterrupted = 130
)

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "parkbench",
		Short:         "Measure thread park/wake latency across parker implementations",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	return root
}

func execute(args []string) int {
	root := newRoot()
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "parkbench:", err)
		return exitUsage
	}
	return exitOK
}
