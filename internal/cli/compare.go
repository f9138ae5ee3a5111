package cli

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/compare"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/verdict"
)

func init() { register(newCompareCmd) }

// exitNoBaseline is compare's status when BASE is a results directory
// without a result of NEW's machine class.
const exitNoBaseline = 3

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
		wide, floors      bool
	)
	cmd := &cobra.Command{
		Use:   "compare BASE NEW...",
		Short: "Judge new runs against a base run; exit 1 on a regression",
		Long: `Compare each NEW result file with BASE, per experiment and configuration, on
the figures its metric description judges (the floor: what a figure is
divided by across machine classes):

` + judgedTable() + `

Per figure: the medians over rounds with their spread, the ratio new/base,
the Mann-Whitney U test over the rounds, and a verdict.

A change counts (faster or slower) only if it exceeds --threshold AND
stands out of the noise the rounds show: p < --alpha where the round counts
allow it, otherwise (3 rounds a side: the smallest possible p is 0.10) only
if the two ranges of per-round values do not overlap. Even so, with 3+3
rounds pure noise separates the ranges 1 time in 10 per row: use more rounds,
or a noise-tolerant gate, before failing builds on it.

What cannot be judged is shown as "not compared" and the output says what
is lacking, never a regression: one round on a side (no noise estimate), a
file without rounds ("cannot judge: no rounds"), a figure one file lacks.

Files from different machine classes are flagged, and judged on each figure
as a ratio to its floor in the same run (the floor's configuration at the
same placement and parameters); figures without a floor are shown, not
judged. The regression gate is 'parkbench ab' (a same-run A/B), not this.

Each NEW file is compared with BASE on its own (rounds are not pooled across
files: each run's noise is judged separately).

BASE may be a directory of recorded results (results/): each NEW is then
compared with the newest recorded result of its machine class there, never
with its own recorded copy, and the output's first line names that baseline
and why it was chosen, or says there is none.

Exit status: 0 no regression, 1 a row is slower beyond the threshold, 2 bad
input (unreadable or foreign file, unknown format version, nothing in
common), 3 BASE is a directory without a result of NEW's machine class.`,
		Example: `  parkbench compare results/linux-amd64-2cpu-xeon-kvm/suite-20261201T101500Z.json out/suite.json
  parkbench compare --threshold=5% --format=markdown base.json new.json >> "$GITHUB_STEP_SUMMARY"`,
		Args: wantArgs(2, -1, "a BASE file and at least one NEW file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, compare.Formats); err != nil {
				return err
			}
			th, err := parsePercent("threshold", threshold)
			if err != nil {
				return err
			}
			if !(alpha > 0 && alpha < 1) {
				return usagef("invalid --alpha %v: want a significance level between 0 and 1, such as 0.05", alpha)
			}
			var files []results.Named
			var bases []results.Named
			if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
				if files, err = readResults(args[1:]); err != nil {
					return err
				}
				for _, n := range files {
					of := ""
					if len(files) > 1 {
						of = " for " + n.Name
					}
					b, _, err := results.FindBaseline(args[0], n.File)
					if errors.Is(err, results.ErrNoBaseline) {
						// err reads "no baseline: <what was looked at>".
						// Said once, as the output's first line (what
						// ci-bench.sh reads), not again on stderr.
						fmt.Fprintf(cmd.OutOrStdout(), "no baseline%s: %s\n", of, strings.TrimPrefix(err.Error(), results.ErrNoBaseline.Error()+": "))
						return exitError{code: exitNoBaseline}
					}
					if err != nil {
						return usagef("%s: %v", args[0], err)
					}
					fmt.Fprintf(cmd.OutOrStdout(), "baseline%s: %s (%s)\n", of, b.Path, b.Why)
					bases = append(bases, results.Named{Name: b.Path, File: b.File})
				}
			} else {
				if files, err = readResults(args); err != nil {
					return err
				}
				for range files[1:] {
					bases = append(bases, files[0])
				}
				files = files[1:]
			}
			opt := compare.Options{Threshold: th, Alpha: alpha, Floors: floors}
			var rs []*compare.Result
			for i, n := range files {
				base := bases[i]
				r, err := compare.Compare(base, n, opt)
				if err != nil {
					var nc *compare.NothingInCommonError
					if errors.As(err, &nc) {
						return usageError{err}
					}
					return usagef("comparing %s with %s: %v", n.Name, base.Name, err)
				}
				rs = append(rs, r)
			}
			if err := compare.RenderWith(cmd.OutOrStdout(), rs, format, compare.RenderOptions{Wide: wide}); err != nil {
				return err
			}
			var slow []string
			for _, r := range rs {
				if r.Failed() {
					slow = append(slow, fmt.Sprintf("%s (%d slower)", r.New, r.Count(verdict.Slower)))
				}
			}
			if len(slow) > 0 {
				return exitError{exitFailed, fmt.Errorf("regression against %s: %s", rs[0].Base, strings.Join(slow, ", "))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output: "+strings.Join(compare.Formats, "|"))
	cmd.Flags().StringVar(&threshold, "threshold", "10%", "smallest change that counts, in `percent`")
	cmd.Flags().Float64Var(&alpha, "alpha", compare.DefaultOptions.Alpha, "significance level of the Mann-Whitney U test over rounds")
	cmd.Flags().BoolVar(&floors, "floors", false, "judge each figure as a ratio to its floor in the same run (futex / c-futex), as across machine classes, also within one")
	cmd.Flags().BoolVar(&wide, "wide", false, "tables: every column (each verdict's reason), however wide")
	return cmd
}
