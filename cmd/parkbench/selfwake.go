package main

import (
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/e12"
	"github.com/spf13/cobra"
)

func init() { register(newSelfwakeCmd) }

func newSelfwakeCmd() *cobra.Command {
	var (
		of                     outputFlags
		impls, lotParker       string
		quick                  bool
		pairs, samples, rounds int
	)
	d := e12.DefaultSelfwakeOptions()
	cmd := &cobra.Command{
		Use:   "selfwake",
		Short: "E12 reverse check: a thread wakes itself, then waits; the wait must return at once",
		Long: `E12's reverse check. One thread wakes itself and then waits, so the wait
returns at once; ns per pair is the median of the samples. If latency's
microseconds came from API overhead rather than from sleeping, they would
show here; the study found ~10 ns. The syscall row is one getppid per pair,
for context. Implementations: parkbench list. Method: docs/experiments.md.`,
		Example: `  parkbench selfwake
  parkbench selfwake --impl=futex,lot,std,crossbeam,c-futex --format=json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := of.check(); err != nil {
				return err
			}
			o := d
			if quick {
				o = e12.QuickSelfwakeOptions()
			}
			fl := cmd.Flags()
			if fl.Changed("impl") {
				o.Impls = splitList(impls)
				if len(o.Impls) == 0 {
					return usagef("--impl is empty; valid names: %s, %s, or all", e12.ImplSyscall, strings.Join(e12.ImplNames(), ", "))
				}
			}
			if fl.Changed("pairs") {
				o.Pairs = pairs
			}
			if fl.Changed("samples") {
				o.Samples = samples
			}
			if fl.Changed("rounds") {
				o.Rounds = rounds
			}
			o.LotParker = lotParker
			return measure(cmd, &of, o, e12.RunSelfwake)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&impls, "impl", "all", "implementations: `NAME`, a comma list, or all (syscall, "+strings.Join(e12.ImplNames(), ", ")+")")
	fl.IntVar(&pairs, "pairs", d.Pairs, "wake-then-wait pairs per timed sample")
	fl.IntVar(&samples, "samples", d.Samples, "samples per round")
	fl.IntVar(&rounds, "rounds", d.Rounds, "rounds")
	fl.StringVar(&lotParker, "lot-parker", "", "parker backend under impl lot (default: the platform default)")
	fl.BoolVar(&quick, "quick", false, "short run: 200 samples per round")
	addOutputFlags(cmd, &of)
	return cmd
}
