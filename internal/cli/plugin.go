package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/plugin"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
	"github.com/parkbench/parkbench/internal/watch"
)

// The --plugin flag: shared libraries of the C ABI (include/parkbench.h,
// docs/plugins.md) whose implementations run beside the built-ins in every
// experiment their kind fits.

const pluginUsage = "load the implementations of a plugin (a shared library of include/parkbench.h's ABI, docs/plugins.md) " +
	"from `PATH`; repeatable; also $" + plugin.EnvVar + " (a ':'-separated list)"

func addPluginFlag(root *cobra.Command) {
	root.PersistentFlags().StringArray("plugin", nil, pluginUsage)
}

// measuring reports whether command name measures: a loaded plugin's
// parkers pass the conformance check before any of them runs (list and the
// others only read the table). The measuring commands are the registry's
// entries (the experiments and run), so a new experiment needs no line here.
func measuring(name string) bool {
	return slices.ContainsFunc(experiments.Registry, func(e experiments.Entry) bool { return e.Name == name })
}

// loadPlugins loads $PARKBENCH_PLUGIN and every --plugin, registers their
// implementations, starts the watchdog over their calls, and (for a
// measuring command) checks their parkers. Every refusal is bad input (exit
// 2), before anything is measured or written. A parker that fails its
// conformance check is not a refusal of the library: that parker is not
// measured (a note on stderr says why, and naming it in --impl is refused
// with the reason), the library's other implementations and kinds are.
func loadPlugins(cmd *cobra.Command) error {
	flags, _ := cmd.Flags().GetStringArray("plugin")
	paths := plugin.Paths(os.Getenv(plugin.EnvVar), flags)
	if len(paths) == 0 {
		return nil
	}
	if err := watch.ParseEnv(); err != nil {
		return usageError{err}
	}
	libs, err := plugin.Load(paths)
	if err != nil {
		return usagef("--plugin: %v", err)
	}
	var impls []ext.Impl
	for _, l := range libs {
		impls = append(impls, l.Impls...)
	}
	if err := experiments.AddExternal(impls...); err != nil {
		return usagef("--plugin: %v", err)
	}
	watch.Start()
	if measuring(cmd.Name()) {
		for _, r := range experiments.CheckExternal() {
			watch.Excuse(r.Impl.Name)
			fmt.Fprintln(cmd.ErrOrStderr(), textfmt.Wrap("parkbench: note: "+r.Note(), textfmt.Columns, "", "    "))
		}
	}
	return nil
}

// stampExternal records, in each experiment that measured an
// implementation from outside the tree, where each came from and its
// library's version (options "external.NAME").
func stampExternal(f *results.File) {
	for _, e := range f.Experiments {
		loops := map[string]bool{}
		for _, c := range e.Configs {
			// A plugin's C row says which loop ran (ABI version 2: the
			// library's own, or the harness's calling its functions).
			if l := c.Params[ext.LoopParam]; l != "" && !loops[c.Impl] {
				loops[c.Impl] = true
				e.Notes = append(e.Notes, fmt.Sprintf("%s ran %s", c.Impl, loopNote(l)))
			}
			x, ok := ext.Lookup(c.Impl)
			if !ok {
				continue
			}
			if e.Options == nil {
				e.Options = map[string]string{}
			}
			v := x.Origin
			if x.Library != "" {
				v += fmt.Sprintf(" (%s %s)", x.Library, x.Version)
			}
			e.Options["external."+x.Name] = strings.TrimSpace(v)
		}
	}
}

// loopNote says what a plugin's C row ran, by its "loop" parameter.
func loopNote(l string) string {
	if l == ext.LoopOwn {
		return "the library's own loop (include/parkbench.h version 2, its lock or parker inlined): its native speed"
	}
	return "the harness's C loop calling the library's functions through pointers (one indirect call per operation)"
}
