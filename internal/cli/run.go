package cli

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/atomicfile"
	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

func init() { register(newRunCmd) }

// runFlags is `parkbench run`'s table: the knobs that mean the same in
// every experiment of the suite (experiments.SuiteOptions says where each
// applies). Each flag maps back the option errors of every field its
// setter sets (fieldsSet: --rounds is latency's Rounds and herd's Repeats).
func runFlags() flagTable[experiments.SuiteOptions] {
	type O = experiments.SuiteOptions
	return flagTable[O]{
		suiteFlag("rounds", "rounds per configuration in every experiment ("+suiteRounds()+"): more rounds buy precision with time; unset, each keeps its own (latency's shown)",
			(*O).Rounds, (*O).SetRounds),
		suiteFlag("iterations", "measured samples per round where a round has a count: latency round trips, selfwake samples (herd's and lock's rounds have none); unset, each keeps its own (latency's shown)",
			(*O).Iterations, (*O).SetIterations),
	}
}

// suiteFlag is an int flag of run, read by get and set by put.
func suiteFlag(name, usage string, get func(*experiments.SuiteOptions) int, put func(*experiments.SuiteOptions, int)) flagDef {
	opts := func(o reflect.Value) *experiments.SuiteOptions {
		return o.Addr().Interface().(*experiments.SuiteOptions)
	}
	f := scalar(name, usage, "int", func(o reflect.Value) int { return get(opts(o)) }, func(o reflect.Value, v int) { put(opts(o), v) }, strconv.Itoa, parseInt)
	f.fields = fieldsSet(put)
	return f
}

func newRunCmd() *cobra.Command {
	var (
		of      outputFlags
		isQuick bool
		isFull  bool
		record  string
		t       = runFlags()
		def, q  = experiments.DefaultSuite(), experiments.QuickSuite()
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the suite: " + strings.Join(experiments.SuiteNames(), ", ") + ", with the study's defaults",
		Long: `Run the suite with the study's method, one experiment after the other
(each flag's default is the experiment's; its own command runs more):

` + suiteTable() + `

The claims are evaluated from the numbers just measured, including the
reverse check, which needs latency and selfwake from the same run. The
default answers in one screen, in about a minute on two vCPUs: latency
and selfwake measure the study's implementations and their floors
across CPUs, on threads; the others their quick sweeps. --full runs the
whole matrix (every implementation, placement and participant kind,
herd's four waiter counts, wake at every thread count: about two minutes
and 600 lines); --quick takes under half a minute.
` + textfmt.Wrap("--rounds and --iterations buy precision with time: --rounds sets the rounds per configuration of every experiment ("+
			suiteRounds()+": each is one sample of the configuration's figures, what compare judges); --iterations the measured samples "+
			"in one round where a round has a count (latency's round trips, selfwake's samples). Either beats --quick.", longColumns, "", "") + `
All experiments go into one result file (--out, or --record DIR to file it
under DIR/<machine>/suite-<UTC time>.json, never overwriting).`,
		Example: `  parkbench run
  parkbench run --full
  parkbench run --quick
  parkbench run --quick --rounds 10
  parkbench run --out suite.json
  parkbench run --record results`,
		Args: flagsOnly,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := of.check(); err != nil {
				return err
			}
			if record != "" {
				if err := atomicfile.CheckDir(record); err != nil {
					return usagef("--record: %v", err)
				}
			}
			if isFull && isQuick {
				return usagef("--full and --quick: give one (--full is the whole matrix, --quick a short run)")
			}
			base := def
			if isFull {
				base = experiments.FullSuite()
			}
			o, err := t.options(cmd.Flags(), base, &q, isQuick)
			if err != nil {
				return err
			}
			of.record = record
			// One screen: the claims by verdict, no notes (-v has them).
			of.view.Brief = true
			var vet func(*results.File) error
			if record != "" {
				vet = func(f *results.File) error {
					if err := results.Recordable(f.Machine); err != nil {
						return usagef("--record: %v", err)
					}
					return nil
				}
			}
			file, err := measure(cmd, &of, t.fields(), func() (experiments.Suite, error) { return experiments.PlanSuite(o) }, vet)
			if err == nil && !of.quiet && !originalsLoaded(file) {
				fmt.Fprintln(cmd.ErrOrStderr(), originalsNote)
			}
			if err != nil || record == "" {
				return err
			}
			p, err := results.Record(record, file, "")
			if err != nil {
				return exitError{exitFailed, fmt.Errorf("recording: %w", err)}
			}
			// Said even with --quiet: compare and report will say it of
			// this file too (results.LoadNote), but the time to rerun is now.
			// The one busy-machine policy: the HTML page's "recorded under
			// load" and this warning are the same function of the same
			// file (no warning from the load average before the run,
			// which the page does not read when the configurations have
			// their foreign share).
			if n := results.LoadNote(file); n != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "*** WARNING: %s was %s; as a baseline it judges the next runs against that noise: rerun 'parkbench run --record %s' with nothing else running, and delete this file\n", p, n, record)
			}
			// Said even with --quiet, as "wrote FILE" is (emit).
			fmt.Fprintf(cmd.ErrOrStderr(), "recorded %s\n", p)
			return nil
		},
	}
	t.register(cmd.Flags(), def, &q)
	addOutputFlags(cmd, &of)
	cmd.Flags().BoolVar(&isQuick, "quick", false, "a short run (under a minute): cross-core latency, fewer round trips and repeats")
	cmd.Flags().BoolVar(&isFull, "full", false, "the whole matrix: every implementation, placement and participant kind (about two minutes)")
	cmd.Flags().StringVar(&record, "record", "", "also file the result under `DIR`/<machine-slug>/suite-<UTC time>.json (never overwrites)")
	return cmd
}

// originalsNote is run's one line when the Rust originals were not loaded:
// without them no claim compares lot with parking_lot itself
// (docs/originals.md).
const originalsNote = `the Rust originals are not loaded: add --plugin "$(bash scripts/rust-originals.sh | tail -1)" to judge lot beside them`

// originalsLoaded reports whether any experiment of f ran parking_lot's
// own implementation (rust-parking_lot, from Go or C threads).
func originalsLoaded(f *results.File) bool {
	for _, e := range f.Experiments {
		if driver.OriginalLoaded(e.Configs) {
			return true
		}
	}
	return false
}

// longColumns is the width of a generated paragraph of a command's long
// help, as its hand-wrapped ones.
const longColumns = 76

// suiteTable lists the suite's parts for run's help, each summary wrapped
// under its column.
func suiteTable() string {
	w := 0
	for _, p := range experiments.SuiteParts {
		w = max(w, len(p.Name))
	}
	var lines []string
	for _, p := range experiments.SuiteParts {
		first := fmt.Sprintf("  %-*s  ", w, p.Name)
		lines = append(lines, textfmt.Wrap(p.Summary, textfmt.Columns, first, strings.Repeat(" ", len(first))))
	}
	return strings.Join(lines, "\n")
}

// suiteRounds says what --rounds sets in each part of the suite:
// "latency's rounds, selfwake's rounds, herd's repeats, ...".
func suiteRounds() string {
	var s []string
	for _, p := range experiments.SuiteParts {
		s = append(s, p.Name+"'s "+p.Rounds)
	}
	return strings.Join(s, ", ")
}
