package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/compare"
)

func init() { register(newCompareCmd) }

// parsePercent reads "10", "10%" or "2.5%" as a fraction (0.10, 0.025).
func parsePercent(flag, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v >= 1000 {
		return 0, usagef("invalid --%s %q: want a percentage from 0 to 1000, such as 10 or 10%%", flag, s)
	}
	return v / 100, nil
}

func newCompareCmd() *cobra.Command {
	var (
		format, threshold string
		alpha             float64
	)
	cmd := &cobra.Command{
		Use:   "compare BASE NEW...",
		Short: "Judge new runs against a base run; exit 1 on a regression",
		Long: `Compare each NEW result file with BASE, per experiment and configuration, on
the experiment's primary figures (latency: median and p99; selfwake: ns per
pair; herd: first waiter and total; timeout: median and p99 lateness): the
medians over rounds with their spread, the ratio new/base, the Mann-Whitney
U test over the rounds, and a verdict.

A change counts (faster or slower) only if it exceeds --threshold AND
stands out of the noise the rounds show: p < --alpha where the round counts
allow it, otherwise (3 rounds a side: the smallest possible p is 0.10) only
if the two ranges of per-round values do not overlap. Even so, with 3+3
rounds pure noise separates the ranges 1 time in 10 per row: use more rounds,
or a noise-tolerant gate, before failing builds on it.

Files from different machines (slug or CPU model differ) are flagged, and
judged on figures divided by each configuration's own probe (latency and
herd first-waiter by the spin one-way probe, selfwake by the syscall probe);
figures without such a probe are shown, not judged.

Each NEW file is compared with BASE on its own (rounds are not pooled across
files: each run's noise is judged separately).

Exit status: 0 no regression, 1 a row is slower beyond the threshold, 2 bad
input (unreadable or foreign file, unknown format version, nothing in
common).`,
		Example: `  parkbench compare results/linux-amd64-2cpu-xeon-kvm/suite-20261201T101500Z.json out/suite.json
  parkbench compare --threshold=5% --format=markdown base.json new.json >> "$GITHUB_STEP_SUMMARY"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usagef("compare needs a BASE file and at least one NEW file (see 'parkbench compare --help')")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(compare.Formats, format) {
				return usagef("invalid --format %q: valid formats are %s", format, strings.Join(compare.Formats, ", "))
			}
			th, err := parsePercent("threshold", threshold)
			if err != nil {
				return err
			}
			if !(alpha > 0 && alpha < 1) {
				return usagef("invalid --alpha %v: want a significance level between 0 and 1, such as 0.05", alpha)
			}
			files, err := readResults(args)
			if err != nil {
				return err
			}
			opt := compare.Options{Threshold: th, Alpha: alpha}
			var rs []*compare.Result
			for _, n := range files[1:] {
				r, err := compare.Compare(files[0].Name, files[0].File, n.Name, n.File, opt)
				if err != nil {
					var nc *compare.NothingInCommonError
					if errors.As(err, &nc) {
						return usageError{err}
					}
					return usagef("comparing %s with %s: %v", n.Name, files[0].Name, err)
				}
				rs = append(rs, r)
			}
			if err := compare.Render(cmd.OutOrStdout(), rs, format); err != nil {
				return err
			}
			var slow []string
			for _, r := range rs {
				if r.Regressed() {
					slow = append(slow, fmt.Sprintf("%s (%d slower)", r.New, r.Count(compare.Slower)))
				}
			}
			if len(slow) > 0 {
				return exitError{exitFailed, fmt.Errorf("regression against %s: %s", files[0].Name, strings.Join(slow, ", "))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output: "+strings.Join(compare.Formats, "|"))
	cmd.Flags().StringVar(&threshold, "threshold", "10%", "smallest change that counts, in `percent`")
	cmd.Flags().Float64Var(&alpha, "alpha", compare.DefaultOptions.Alpha, "significance level of the Mann-Whitney U test over rounds")
	return cmd
}
