package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/inversion"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/loaded"
	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/experiments/selfwake"
	"github.com/parkbench/parkbench/internal/experiments/spin"
	"github.com/parkbench/parkbench/internal/experiments/stacks"
	"github.com/parkbench/parkbench/internal/experiments/timeout"
	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// The measuring commands of the experiments, one constructor each: the
// experiment's options and plan (experimentCmd); its flags are the tags of
// the Options fields (tagged, flags.go). What each command
// says of itself (summary, long help, examples) is help/<command>.txt. A
// new experiment adds its constructor here, in registry order.
func init() {
	for _, mk := range []func() *cobra.Command{
		newLatencyCmd, newSelfwakeCmd, newHerdCmd, newTimeoutCmd, newLockCmd,
		newRwlockCmd, newWakeCmd, newLoadedCmd, newSpinCmd, newStacksCmd, newInversionCmd,
	} {
		register(mk)
	}
}

func newLatencyCmd() *cobra.Command {
	return experimentCmd[latency.LatencyOptions]{use: "latency", names: latency.ImplNames, def: latency.DefaultLatencyOptions, quick: latency.QuickLatencyOptions, plan: latency.PlanLatency}.command()
}

func newSelfwakeCmd() *cobra.Command {
	return experimentCmd[selfwake.Options]{use: "selfwake", names: selfwake.ImplNames, def: selfwake.DefaultOptions, quick: selfwake.QuickOptions, plan: selfwake.PlanSelfwake}.command()
}

func newHerdCmd() *cobra.Command {
	return experimentCmd[herd.Options]{use: "herd", names: herd.ImplNames, def: herd.DefaultOptions, quick: herd.QuickOptions, plan: herd.Plan}.command()
}

func newTimeoutCmd() *cobra.Command {
	return experimentCmd[timeout.Options]{use: "timeout", names: timeout.ImplNames, def: timeout.DefaultOptions, quick: timeout.QuickOptions, plan: timeout.Plan}.command()
}

func newLockCmd() *cobra.Command {
	var implLines []string
	for _, im := range lock.Impls() {
		line := im.Summary
		if im.Why != "" {
			line += " [unavailable: " + im.Why + "]"
		}
		// Wrapped under the summary column, so help fits textfmt.Columns
		// on every OS (the reasons an implementation cannot run are long).
		implLines = append(implLines, textfmt.Wrap(line, textfmt.Columns, fmt.Sprintf("  %-10s ", im.Name), strings.Repeat(" ", 13)))
	}
	cmd := experimentCmd[lock.Options]{use: "lock", names: lock.ImplNames, def: lock.DefaultOptions, quick: lock.QuickOptions, plan: lock.Plan}.command()
	cmd.Long = strings.Replace(cmd.Long, "{implementations}", strings.Join(implLines, "\n"), 1)
	// Read by rwlockAlias before cobra parses: "lock --rwlock" runs rwlock.
	cmd.Flags().Bool("rwlock", false, "run 'parkbench rwlock' (parking_lot's rwlock benchmark) instead; its flags follow")
	return cmd
}

// The rwlock benchmark, experiment "rwlock" of internal/experiments/lock.
// It was "lock --rwlock", which still works (rwlockAlias).
func newRwlockCmd() *cobra.Command {
	return experimentCmd[lock.RwOptions]{use: "rwlock", names: lock.RwImplNames, def: lock.DefaultRwOptions, quick: lock.QuickRwOptions, plan: lock.PlanRw}.command()
}

// rwlockAlias rewrites "lock --rwlock ..." (the command's name before it was
// its own) to "rwlock ...": the alias stays for scripts that use it.
// Only the subcommand position is looked at; "--rwlock=false" keeps lock.
func rwlockAlias(args []string) []string {
	if len(args) == 0 || args[0] != "lock" {
		return args
	}
	for i, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "--rwlock" || a == "--rwlock=true" {
			out := append([]string{"rwlock"}, args[1:i+1]...)
			return append(out, args[i+2:]...)
		}
	}
	return args
}

func newWakeCmd() *cobra.Command {
	return experimentCmd[wake.Options]{use: "wake", names: wake.ImplNames, def: wake.DefaultOptions, quick: wake.QuickOptions, plan: wake.Plan, renderers: map[string]func(io.Writer, *results.File) error{wake.FormatPerf: wake.RenderPerf}}.command()
}

func newLoadedCmd() *cobra.Command {
	return experimentCmd[loaded.Options]{use: "loaded", names: loaded.ImplNames, def: loaded.DefaultOptions, quick: loaded.QuickOptions, plan: loaded.Plan}.command()
}

func newSpinCmd() *cobra.Command {
	return experimentCmd[spin.Options]{use: "spin", names: spin.ImplNames, def: spin.DefaultOptions, quick: spin.QuickOptions, plan: spin.Plan}.command()
}

func newStacksCmd() *cobra.Command {
	return experimentCmd[stacks.Options]{use: "stacks", names: stacks.ImplNames, def: stacks.DefaultOptions, plan: stacks.Plan}.command()
}

func newInversionCmd() *cobra.Command {
	return experimentCmd[inversion.Options]{use: "inversion", names: inversion.ImplNames, def: inversion.DefaultOptions, quick: inversion.QuickOptions, plan: inversion.Plan}.command()
}
