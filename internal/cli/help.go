package cli

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/parkbench/parkbench/internal/compare"
	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/plot"
	"github.com/parkbench/parkbench/internal/report"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// This file is what parkbench says about itself: --help within
// textfmt.Columns (flag descriptions and the command list wrapped under
// their column, name lists included), `parkbench version` and --version,
// and the values shell completion offers for --impl, --placement,
// --experiment and --format, from the registry `parkbench list` shows.

func init() { register(newVersionCmd) }

// usageTemplate is cobra's default usage template with the command list
// and the flags wrapped at textfmt.Columns.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
{{commandLine .}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{wrappedFlags .LocalFlags}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{wrappedFlags .InheritedFlags}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

func init() {
	cobra.AddTemplateFunc("wrappedFlags", func(fs *pflag.FlagSet) string {
		return strings.TrimRight(fs.FlagUsagesWrapped(textfmt.Columns), " \n")
	})
	cobra.AddTemplateFunc("commandLine", func(c *cobra.Command) string {
		first := fmt.Sprintf("  %-*s ", c.NamePadding(), c.Name())
		return textfmt.Wrap(c.Short, textfmt.Columns, first, strings.Repeat(" ", len(first)))
	})
}

// setHelp gives root (and so every command) the wrapped usage, the version
// flag without a shorthand (-v is --verbose) and the value completions.
func setHelp(root *cobra.Command) {
	root.SetUsageTemplate(usageTemplate)
	root.Flags().Bool("version", false, "print the version (as parkbench version does) and exit")
	root.Version = versionString() + " " + platform()
	root.SetVersionTemplate("parkbench {{.Version}}\n")
	for _, c := range root.Commands() {
		registerCompletions(c)
	}
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print parkbench's version, commit, Go version and platform",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "parkbench %s\n", versionString()+" "+platform())
			return err
		},
	}
}

// implNames are the names the --impl (or --mech) of command use accepts,
// from experiments.Registry: its entry, "all" first, each name once; for a
// command that is no experiment (plot), every experiment's.
func implNames(use string) []string {
	names := []string{"all"}
	mine := slices.ContainsFunc(experiments.Registry, func(e experiments.Entry) bool { return e.Name == use })
	for _, e := range experiments.Registry {
		if e.Impls == nil || (mine && e.Name != use) {
			continue
		}
		for _, im := range e.Impls() {
			if !slices.Contains(names, im.Name) {
				names = append(names, im.Name)
			}
		}
	}
	return names
}

// implFlag is the flag of command use that names implementations.
func implFlag(use string) string {
	for _, e := range experiments.Registry {
		if e.Name == use && e.Flag != "" {
			return strings.TrimPrefix(e.Flag, "--")
		}
	}
	return "impl"
}

// registerCompletions offers the values of c's --impl (--mech),
// --placement, --experiment and --format to shell completion, and walks
// c's subcommands. The values are read when a completion asks for them:
// the implementations' are each experiment's, with whether each runs here
// (inversion reads /proc for it), which every start of the command would
// otherwise pay for.
func registerCompletions(c *cobra.Command) {
	use := c.Name()
	values := map[string]func() []string{
		implFlag(use): func() []string { return implNames(use) },
		"placement":   func() []string { return append([]string{"all"}, driver.Placements...) },
		"experiment":  plotExperiments,
		"format":      func() []string { return report.Formats },
	}
	if use == "compare" {
		values["format"] = func() []string { return compare.Formats }
	}
	for name, vs := range values {
		if c.Flags().Lookup(name) == nil {
			continue
		}
		if _, done := c.GetFlagCompletionFunc(name); done {
			continue // the command's own (a measuring command's --format)
		}
		list := name != "format" && name != "experiment"
		// The flag exists and has no completion yet: this cannot fail.
		_ = c.RegisterFlagCompletionFunc(name, completeFrom(vs, list))
	}
	for _, sub := range c.Commands() {
		registerCompletions(sub)
	}
}

// plotExperiments are the experiment names plot's --experiment may be
// given: those of the registry whose metric description has a plot, and
// those plot draws from files without a metric description.
func plotExperiments() []string {
	var names []string
	for _, e := range experiments.Registry {
		if len(plotTitles(e.Metrics)) > 0 {
			names = append(names, e.Name)
		}
	}
	for _, n := range plot.Plottable {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// completeFrom completes a flag's value from values(); for a comma list, the
// item after the last comma, leaving out the items already given.
func completeFrom(values func() []string, list bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		vs := values()
		prefix, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); list && i >= 0 {
			prefix, last = toComplete[:i+1], toComplete[i+1:]
		}
		given := strings.Split(prefix, ",")
		var out []string
		for _, v := range vs {
			if strings.HasPrefix(v, last) && !slices.Contains(given, v) {
				out = append(out, prefix+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// platform is this build's GOOS/GOARCH, for the version line.
func platform() string { return runtime.GOOS + "/" + runtime.GOARCH }

// plotTitles are the titles of the figures a metric description plots.
func plotTitles(specs []results.MetricSpec) []string {
	var out []string
	for _, m := range specs {
		if m.Plot != nil {
			out = append(out, m.Plot.Title)
		}
	}
	return out
}

// registryTable is one line per registry experiment for which line says
// something ("" leaves it out), wrapped under its column: the lists in
// plot's and compare's help.
func registryTable(line func(experiments.Entry) string) string {
	w := 0
	for _, e := range experiments.Registry {
		if line(e) != "" {
			w = max(w, len(e.Name))
		}
	}
	var lines []string
	for _, e := range experiments.Registry {
		if s := line(e); s != "" {
			first := fmt.Sprintf("  %-*s  ", w, e.Name)
			lines = append(lines, textfmt.Wrap(s, textfmt.Columns, first, strings.Repeat(" ", len(first))))
		}
	}
	return strings.Join(lines, "\n")
}

// plotTable lists, per experiment, the figures plot draws of it.
func plotTable() string {
	return registryTable(func(e experiments.Entry) string { return strings.Join(plotTitles(e.Metrics), "; ") })
}

// judgedTable lists, per experiment, the figures compare judges and the
// floor each is divided by across machine classes.
func judgedTable() string {
	return registryTable(func(e experiments.Entry) string {
		var figs []string
		for _, m := range e.Metrics {
			if !m.Judged {
				continue
			}
			f := m.Header
			if m.Floor != "" {
				f += " (floor " + m.Floor + ")"
			}
			figs = append(figs, f)
		}
		return strings.Join(figs, ", ")
	})
}
