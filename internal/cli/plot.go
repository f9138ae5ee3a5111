package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/atomicfile"
	"github.com/parkbench/parkbench/internal/gate"
	"github.com/parkbench/parkbench/internal/plot"
)

func init() { register(newPlotCmd) }

func newPlotCmd() *cobra.Command {
	var out, experiment, impls, configs string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "plot FILE... --out IMAGE.svg|IMAGE.png",
		Short: "Draw result files: each experiment's figures as its metric description says, one image",
		Long: `Draw result files into an SVG or PNG image (the format follows --out's
extension), each experiment as its metric description says:

` + plotTable() + `

A figure by percentile is the distribution HdrHistogram style: x is the
percentile on a log scale of 1/(1-p) (0%, 90%, 99%, 99.9%, ...), y the
latency in µs (log scale when the range is wide); one panel per placement
or setting, one line per implementation, its rounds' histograms merged. A
figure against a parameter (N, the load) has one panel per figure, one line
(colour and marker) per implementation. Throughput against threads has a
panel per setting (threads, goroutines), split by family (Go; C and
pthread) past 8 lines, and the per-thread acquisitions/s at the largest
thread count (a box per implementation). An experiment without a plotted
figure (selfwake, rwlock) is a dot chart of its judged figures: a row per
configuration, best at the top, the rounds' range and the floor's line.

One legend, right of the panels, never over a line: a colour per
implementation and, when several FILEs are drawn, a line style per file
named with its machine (base and new side by side: the compare view as a
picture). A panel with more than 8 implementations draws the headline ones
by default (the A/B gate's rows and their C floor; for other experiments the
floors and a few across the range) and the title says so; --impl and
--config choose others. --experiment chooses when a file holds several (a
suite). The image is written to a temporary file and renamed: a failed plot
leaves nothing behind.`,
		Example: `  parkbench plot out/latency.json --out latency.png
  parkbench plot --experiment=herd out/suite.json --out herd.svg
  parkbench plot --experiment=latency base.json new.json --config=cross-core --out cmp.png
  parkbench plot out/latency.json --impl=futex,lot,c-futex,spin,c-spin --out some.svg`,
		Args: wantArgs(1, -1, "at least one result FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			implList, configList := splitList(impls), splitList(configs)
			if err := onceEach("impl", implList, implList); err != nil {
				return err
			}
			if err := onceEach("config", configList, configList); err != nil {
				return err
			}
			if out == "" {
				return usagef("plot needs --out FILE with a %s extension", strings.Join(plot.Formats, " or "))
			}
			if _, err := plot.Format(out); err != nil {
				return usagef("invalid --out: %v", err)
			}
			if err := atomicfile.Check(out); err != nil {
				return usagef("--out: %v", err)
			}
			in, err := readResults(args)
			if err != nil {
				return err
			}
			if err := plot.WriteFile(out, in, plot.Options{Experiment: experiment, Impls: implList, Configs: configList, Preferred: plotLines()}); err != nil {
				var ie *plot.InputError
				if errors.As(err, &ie) {
					return usageError{err}
				}
				return exitError{exitFailed, err}
			}
			if !quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", out)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "image to write: `FILE`.svg or FILE.png")
	cmd.Flags().StringVar(&experiment, "experiment", "", "experiment to draw when a file holds several: "+strings.Join(plotExperiments(), "|"))
	cmd.Flags().StringVar(&impls, "impl", "", "draw these implementations: `NAME`, a comma list, or all (default: every one when a panel has at most 8, else the headline ones)")
	cmd.Flags().StringVar(&configs, "config", "", "draw the configurations whose key has every part of one `KEY[,KEY...]` (futex/cross-core, cross-core, wake/w=1, n=64) or matches it as a glob (lot/*)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "do not say which file was written")
	return cmd
}

// plotLines are the lines a crowded panel draws by default, per
// experiment: the A/B gate's rows (its headline profile), so that a plot
// shows what the gate judges.
func plotLines() map[string][]string {
	m := map[string][]string{}
	for _, p := range gate.DefaultProfile {
		m[p.Experiment] = append(m[p.Experiment], p.Impls...)
	}
	return m
}
