package main

import (
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/parkers"
)

func init() { register(newListCmd) }

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List every experiment and every implementation its --impl accepts, and whether it runs here",
		Long: `List, per experiment, every implementation its --impl accepts (stacks: --mech),
generated from the experiments themselves: name, kind (thread: blocks or spins
the OS thread; token: unpark may come first and leaves one token; goroutine:
parks in the Go scheduler; lot: the parking lot; c-reference: C threads, no Go
runtime), whether it runs on this OS and build and, if not, why.
See docs/experiments.md for what each experiment measures.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return renderList(cmd.OutOrStdout(), runtime.GOOS+"/"+runtime.GOARCH, parkers.DefaultName(), experiments.Registry)
		},
	}
}

// renderList writes the listing of reg: the experiments with their
// summaries, then per experiment its implementations and whether each runs
// here.
func renderList(w io.Writer, platform, defaultParker string, reg []experiments.Entry) error {
	fmt.Fprintf(w, "Experiments\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range reg {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Name, e.Summary)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nImplementations on %s (default parker here: %s)\n", platform, defaultParker)
	for _, e := range reg {
		if e.Impls == nil {
			continue
		}
		flag := e.Flag
		if flag == "" {
			flag = "--impl"
		}
		fmt.Fprintf(w, "\n%s %s\n", e.Name, flag)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  NAME\tKIND\tHERE\tWHAT IT IS")
		for _, im := range e.Impls() {
			here, summary := "yes", im.Summary
			if im.Why != "" {
				here, summary = "no", "not here: "+im.Why+" | "+im.Summary
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", im.Name, im.Kind, here, summary)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
