package main

import (
	"fmt"
	"runtime"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/parkers"
)

func init() { register(newListCmd) }

// experimentsInfo is what `parkbench list` says about each experiment.
var experimentsInfo = []struct{ name, summary string }{
	{"latency", "E12: ping-pong one-way wake latency per parker (median, p99 from HDR histograms, 3 rounds)"},
	{"selfwake", "E12 reverse check: a thread wakes itself then waits; ns per pair"},
	{"herd", "E6: notify_all with N waiters; requeue onto the mutex vs the thundering herd"},
	{"timeout", "how late each park-until returns after its deadline, with timer slack"},
	{"stacks", "where each mechanism's blocked thread sleeps (wchan, syscall, kernel stack)"},
	{"run", "the suite: latency, selfwake and herd with defaults (--quick: under a minute)"},
}

type implInfo struct{ name, kind, why, summary string }

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List every parker backend and experiment, and whether it runs here",
		Long: `List every implementation --impl accepts (the parker backends, the parking
lot, the C reference) with its kind (thread: blocks or spins the OS thread;
token: unpark may come first and leaves one token; goroutine: parks in the Go
scheduler; c-reference: C threads, no Go runtime), whether it runs on this
OS and build and, if not, why; then the experiments.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "Implementations on %s/%s (default parker here: %s)\n\n", runtime.GOOS, runtime.GOARCH, defaultParkerName())
			var rows []implInfo
			for _, b := range parkers.All() {
				rows = append(rows, implInfo{b.Name, string(b.Kind), b.Why(), b.Summary})
			}
			rows = append(rows, extraImpls()...)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tHERE\tWHAT IT IS")
			for _, r := range rows {
				here, summary := "yes", r.summary
				if r.why != "" {
					here, summary = "no", "not here: "+r.why+" | "+r.summary
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.name, r.kind, here, summary)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(w, "\nExperiments")
			fmt.Fprintln(w)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			for _, e := range experimentsInfo {
				fmt.Fprintf(tw, "%s\t%s\n", e.name, e.summary)
			}
			return tw.Flush()
		},
	}
}
