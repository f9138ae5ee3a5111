package cli

import (
	"encoding/json"
	"math"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/trend"
)

func init() { register(newTrendCmd) }

func newTrendCmd() *cobra.Command {
	var (
		format, class, minChange string
	)
	o := trend.DefaultOptions
	cmd := &cobra.Command{
		Use:   "trend DIR",
		Short: "Change points over recorded results: where each judged figure moved, per machine class",
		Long: `Read every recorded result under DIR (results/: DIR/<slug>/*.json), group them
by machine class (a class recorded under an older slug rule joins its class),
and for each class, experiment, configuration and judged figure of the metric
description, find where the series of runs (oldest first) moved: e-divisive
means as Hunter / Apache Otava and MongoDB's CI do, each split kept when a
permutation test gives p < --p, segments of 3 runs at least, changes of
--min-change or more. One line per change: the figure, the medians before
and after, the time and commit of the first run after it, and p.

A regression is a persistent shift in a series of runs, not one pair: this
is the history view. The gate that fails a build is 'parkbench ab'. The
detector's error rates on synthetic series are in docs/gate.md.

Exit status: 0 (moved or not), 2 bad input (DIR missing or a file, bad flags).`,
		Example: `  parkbench trend results
  parkbench trend --machine=linux-amd64-2cpu-intel-xeon results`,
		Args: wantArgs(1, 1, "one DIR of recorded results"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, []string{"text", "json"}); err != nil {
				return err
			}
			mc, err := parsePercent("min-change", minChange)
			if err != nil {
				return err
			}
			o.MinChange = mc
			if !(o.P > 0 && o.P < 1) || math.IsNaN(o.P) {
				return usagef("invalid --p %v: want a level in (0, 1), such as 0.01", o.P)
			}
			files, paths, skipped, err := trend.Load(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			r := trend.Analyze(args[0], files, paths, class, o)
			r.Skipped = skipped
			if class != "" && len(r.Classes) == 0 {
				return usagef("--machine %q: no recorded class under %s starts with it", class, args[0])
			}
			if format == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			trend.Render(cmd.OutOrStdout(), r)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&class, "machine", "", "only the machine classes whose slug starts with `SLUG`")
	f.Float64Var(&o.P, "p", o.P, "significance level of each split's permutation test")
	f.StringVar(&minChange, "min-change", "5%", "smallest change of the segment medians reported, in `percent`")
	f.StringVar(&format, "format", "text", "output: text|json")
	return cmd
}
