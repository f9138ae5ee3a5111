package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/atomicfile"
	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/results"
)

func init() { register(newRunCmd) }

// runFlags are `parkbench run`'s own flags.
type runFlags struct {
	outputFlags
	quick  bool
	record string
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the suite: E12 latency and selfwake, E6 herd, the contended lock and rwlock, with the study's defaults",
		Long: `Run the suite with the study's method: latency (E12: every implementation,
every placement, 1000 warm-up + 10 000 round trips, 3 rounds), selfwake (the
E12 reverse check), herd (E6: N = 1, 4, 16, 64, 5 repeats), lock's quick
sweep (the contended mutex, parking_lot's benchmark: 2 and 2 x NumCPU
threads; 'parkbench lock' runs the full sweep) and one small lock --rwlock
configuration (NumCPU readers, one writer). The claims are evaluated from
the numbers just measured, including the reverse check, which needs latency
and selfwake from the same run. A few minutes on two vCPUs; --quick takes
under a minute.
All experiments go into one result file (--out, or --record DIR to file it
under DIR/<machine>/suite-<UTC time>.json, never overwriting).`,
		Example: `  parkbench run --quick
  parkbench run --out suite.json
  parkbench run --record results`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			if f.record != "" {
				if err := atomicfile.CheckDir(f.record); err != nil {
					return usagef("--record: %v", err)
				}
			}
			o := experiments.DefaultSuite()
			if f.quick {
				o = experiments.QuickSuite()
			}
			if err := o.Validate(); err != nil {
				return runErr(err)
			}
			ctx, stop := signalContext()
			defer stop()
			file := newFile(cmd)
			if f.record != "" {
				if err := results.Recordable(file.Machine); err != nil {
					return usagef("--record: %v", err)
				}
			}
			exps, err := experiments.RunSuite(ctx, o, progress(cmd, &f.outputFlags))
			if err != nil {
				return runErr(err)
			}
			file.Experiments = exps
			if err := emit(cmd, &f.outputFlags, file); err != nil {
				return err
			}
			if f.record != "" {
				p, err := results.Record(f.record, file, "")
				if err != nil {
					return exitError{exitFailed, fmt.Errorf("recording: %w", err)}
				}
				if !f.quiet {
					fmt.Fprintf(cmd.ErrOrStderr(), "recorded %s\n", p)
				}
			}
			return nil
		},
	}
	addOutputFlags(cmd, &f.outputFlags)
	cmd.Flags().BoolVar(&f.quick, "quick", false, "a short run (under a minute): cross-core latency, fewer round trips and repeats")
	cmd.Flags().StringVar(&f.record, "record", "", "also file the result under `DIR`/<machine-slug>/suite-<UTC time>.json (never overwrites)")
	return cmd
}
