package main

import (
	"fmt"
	"runtime"

	"github.com/olekukonko/tablewriter"
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

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List every parker backend and experiment, and whether it runs here",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "Parker backends on %s/%s (default here: %s)\n", runtime.GOOS, runtime.GOARCH, defaultParkerName())
			t := tablewriter.NewWriter(w)
			t.Header("name", "kind", "runs here", "what it is")
			for _, b := range parkers.All() {
				runs := "yes"
				if why := b.Why(); why != "" {
					runs = "no: " + why
				}
				t.Append(b.Name, string(b.Kind), runs, b.Summary)
			}
			for _, x := range extraImpls() {
				runs := "yes"
				if x.why != "" {
					runs = "no: " + x.why
				}
				t.Append(x.name, x.kind, runs, x.summary)
			}
			if err := t.Render(); err != nil {
				return err
			}
			fmt.Fprintln(w)
			fmt.Fprintln(w, "Experiments")
			t = tablewriter.NewWriter(w)
			t.Header("name", "what it measures")
			for _, e := range experimentsInfo {
				t.Append(e.name, e.summary)
			}
			return t.Render()
		},
	}
}

type implInfo struct{ name, kind, why, summary string }
