package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/atomicfile"
	"github.com/parkbench/parkbench/internal/gate"
	"github.com/parkbench/parkbench/internal/textfmt"
	"github.com/parkbench/parkbench/internal/verdict"
)

func init() { register(newABCmd) }

func newABCmd() *cobra.Command {
	var (
		format, out, minEffect string
		profile                string
		quiet                  bool
		seed                   uint64
		timeout                time.Duration
	)
	opt := gate.DefaultOptions
	cmd := &cobra.Command{
		Use:   "ab BASE_BIN NEW_BIN",
		Short: "The regression gate: a same-run A/B of two parkbench binaries; exit 1 on a regression",
		Long: `Run the regression gate: short trials of two parkbench binaries (the base
revision's and the new one's) on this machine, interleaved, and judge each
headline figure with a test that has a known false-alarm rate.

Each trial runs the --profile in one binary, each part its own process
launch (the profiles, then the parts):

` + profileTable() + `

A part's rows are its implementations; a part judged against a floor
measures the figure's floor (the C implementation) in the same launch and
judges each row as a ratio to it in the same rounds, so what the machine
does to both cancels; a raw part judges the figure as it is. Trials run in
blocks ABBA or BAAB (chosen at random, --seed recorded), --trials a side;
rows whose verdict is still unknown get --step more a side, up to
--max-trials.

Each row: a Mann-Whitney U test over the trials (x/perf's benchstat test)
and the same test on the trials' distances from the pooled median (a
change of spread, as when some trials fall into a second regime), the
row's p twice the smaller; Holm's correction over the rows and the
geomean, alpha split over the looks, so a whole run alarms at most --alpha
of the time on unchanged code. A change counts when it is significant and
the median (or the bad quartile) moved by at least --min-effect; "same"
also when the bootstrap interval of new/base excludes +--min-effect;
"unknown" otherwise (more trials, then reported, not failing). Measured
false-alarm rate and detection power: docs/gate.md (scripts/gate-eval.sh).

The first line of the output is the verdict; the table gives per row the
base and new medians of the judged figure, new/base with its 95% interval,
the adjusted p and the verdict. --out writes every trial as JSON.

Exit status: 0 no regression, 1 a regression (or the new binary crashed or
hung in a trial), 2 bad input (a binary that is not parkbench, cannot run
the trial, writes a result this build cannot read; the message names it),
130 interrupted (nothing written).`,
		Example: `  parkbench ab /tmp/base/parkbench ./parkbench
  scripts/ci-bench.sh --base=HEAD^     # builds both revisions, then runs ab`,
		Args: wantArgs(2, 2, "BASE_BIN and NEW_BIN, two parkbench binaries"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, gate.Formats); err != nil {
				return err
			}
			me, err := parsePercent("min-effect", minEffect)
			if err != nil {
				return err
			}
			opt.MinEffect = me
			if err := opt.Validate(); err != nil {
				return runErr(err, abFlags)
			}
			i := slices.IndexFunc(gate.Profiles, func(p gate.Profile) bool { return p.Name == profile })
			if i < 0 {
				return usagef("invalid --profile %q: valid profiles are %s", profile, strings.Join(gate.ProfileNames(), ", "))
			}
			if timeout <= 0 {
				return usagef("invalid --trial-timeout %v: want a positive duration such as 2m", timeout)
			}
			if out != "" {
				if err := atomicfile.Check(out); err != nil {
					return usagef("--out: %v", err)
				}
			}
			if cmd.Flags().Changed("seed") {
				opt.Seed = seed
			} else {
				opt.Seed = uint64(time.Now().UnixNano())
			}
			ctx, stop := signalContext()
			defer stop()
			src := &gate.ProcessSource{Bins: map[gate.Side]string{gate.Base: args[0], gate.New: args[1]}, Profile: gate.Profiles[i].Parts, Timeout: timeout}
			started := time.Now().UTC()
			load0 := gate.LoadAvg()
			rows, err := src.Prepare(ctx)
			if err != nil {
				return abErr(err)
			}
			var progress gate.Progress
			if !quiet {
				errw := cmd.ErrOrStderr()
				progress = func(t *gate.Trial, done, planned int) {
					fmt.Fprintf(errw, "[%d/%d %s] trial %d: %s, %.1fs, load %.2f\n", done, planned,
						time.Since(started).Truncate(time.Second), t.Index, t.Side, t.Duration.Seconds(), t.Load)
				}
			}
			res, err := gate.Run(ctx, src, rows, opt, progress)
			if err != nil {
				return abErr(err)
			}
			rep := &gate.Report{Format: "parkbench-ab", Version: 1, Started: started,
				Base:    gate.Binary{Path: args[0], Version: src.Version[gate.Base], Tool: src.Tool[gate.Base]},
				New:     gate.Binary{Path: args[1], Version: src.Version[gate.New], Tool: src.Tool[gate.New]},
				Machine: src.Machine, Profile: src.Profile, Load: [2]float64{load0, gate.LoadAvg()}, Dropped: src.Dropped, Outcome: res}
			rep.Command = src.Command(src.Profile[0])
			for _, p := range src.Profile {
				rep.Commands = append(rep.Commands, src.Command(p))
			}
			if err := gate.Render(cmd.OutOrStdout(), rep, format); err != nil {
				return err
			}
			if out != "" {
				if err := writeJSON(out, rep); err != nil {
					return exitError{exitFailed, err}
				}
			}
			if res.Regression {
				var slow []string
				for _, r := range append(res.Rows, res.Geomean) {
					if r.Verdict == verdict.Slower {
						slow = append(slow, fmt.Sprintf("%s %+.1f%%", r.Label(), 100*(r.Ratio-1)))
					}
				}
				return exitError{exitFailed, fmt.Errorf("regression: %s", strings.Join(slow, ", "))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	intVar(f, &opt.Trials, "trials", opt.Trials, "trials a side before the first verdict (even, at least 4)")
	intVar(f, &opt.MaxTrials, "max-trials", opt.MaxTrials, "trials a side at most, for rows still unknown")
	intVar(f, &opt.Step, "step", opt.Step, "trials a side added at each further look (even)")
	f.Float64Var(&opt.Alpha, "alpha", opt.Alpha, "false-alarm rate of a whole gate run on unchanged code")
	f.StringVar(&minEffect, "min-effect", "3%", "smallest change that counts, in `percent`")
	f.Uint64Var(&seed, "seed", 0, "seed of the trial order and the bootstrap (default: from the clock; recorded)")
	f.DurationVar(&timeout, "trial-timeout", 2*time.Minute, "longest one launch may take (a lost wakeup hangs it)")
	f.StringVar(&format, "format", "text", "output on stdout: "+strings.Join(gate.Formats, "|"))
	f.StringVar(&profile, "profile", "all", "what a trial measures: "+strings.Join(gate.ProfileNames(), "|")+" (see above)")
	f.StringVarP(&out, "out", "o", "", "also write the whole run (every trial) as JSON to `FILE`")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}

// abFlags names the flag of each gate.Options field a flag sets, for
// Validate's errors (flagError).
var abFlags = map[string]string{"Trials": "trials", "MaxTrials": "max-trials", "Step": "step", "Alpha": "alpha", "MinEffect": "min-effect"}

// abErr maps the gate's errors to exit statuses: interrupted 130, a binary
// that cannot serve 2 (naming it), a failed trial of the new binary 1 (a
// crash or a hang is a regression), of the base 2.
func abErr(err error) error {
	var be *gate.BinaryError
	var te *gate.TrialError
	switch {
	case errors.Is(err, context.Canceled):
		return exitError{exitInterrupted, errors.New("interrupted; nothing written")}
	case errors.As(err, &be):
		return usageError{err}
	case errors.As(err, &te) && te.Side == gate.New:
		return exitError{exitFailed, err}
	case errors.As(err, &te):
		return usageError{err}
	}
	return exitError{exitFailed, err}
}

// writeJSON writes v as indented JSON to path atomically (nothing on
// failure).
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'))
}

// profileTable lists the gate's profiles and parts for ab's help: each
// profile with its summary, each part with its rows, its command line and
// how it is judged.
func profileTable() string {
	var lines []string
	for _, p := range gate.Profiles {
		lines = append(lines, textfmt.Wrap(p.Summary, textfmt.Columns, fmt.Sprintf("  %-8s ", p.Name), strings.Repeat(" ", 11)))
	}
	lines = append(lines, "")
	for _, part := range gate.DefaultProfile {
		judged := "against its floor"
		if part.Raw {
			judged = "raw"
		}
		s := fmt.Sprintf("rows %s, judged %s: parkbench %s", strings.Join(part.Impls, ", "), judged, strings.Join(part.Args(part.Impls), " "))
		lines = append(lines, textfmt.Wrap(s, textfmt.Columns, fmt.Sprintf("  %-8s ", part.Experiment), strings.Repeat(" ", 11)))
	}
	return strings.Join(lines, "\n")
}
