package cli

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/textfmt"
)

func init() { register(newListCmd) }

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List every experiment and every implementation its --impl accepts, and whether it runs here",
		Long: `List, per experiment, every implementation its --impl accepts (stacks: --mech),
generated from the experiments themselves: name, kind (thread: blocks or spins
the OS thread; token: unpark may come first and leaves one token; goroutine:
parks in the Go scheduler; lot: the parking lot; c-reference: C threads, no Go
runtime), whether it runs on this OS and build and, if not, why.
See docs/experiments.md for what each experiment measures.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return renderList(cmd.OutOrStdout(), runtime.GOOS+"/"+runtime.GOARCH, parkers.DefaultName(), experiments.Registry)
		},
	}
}

// renderList writes the listing of reg: the experiments with their
// summaries, then per experiment its implementations and whether each runs
// here, within textfmt.Columns (descriptions wrap under their column). An
// experiment that accepts every implementation of one listed before it
// (selfwake: latency's, and syscall) lists only the others; an
// implementation described the same way under an earlier experiment says
// "as under" that one instead of repeating the description.
func renderList(w io.Writer, platform, defaultParker string, reg []experiments.Entry) error {
	var b strings.Builder
	b.WriteString("Experiments\n\n")
	nameW := 0
	for _, e := range reg {
		nameW = max(nameW, textfmt.Width(e.Name))
	}
	for _, e := range reg {
		first := fmt.Sprintf("  %-*s  ", nameW, e.Name)
		b.WriteString(textfmt.Wrap(e.Summary, textfmt.Columns, first, strings.Repeat(" ", len(first))) + "\n")
	}
	fmt.Fprintf(&b, "\nImplementations on %s (default parker here: %s)\n", platform, defaultParker)
	type listed struct {
		exp   string
		impls []driver.ImplInfo
	}
	var done []listed
	firstUnder := map[driver.ImplInfo]string{} // an implementation -> the experiment that first described it
	for _, e := range reg {
		if e.Impls == nil {
			continue
		}
		flag := e.Flag
		if flag == "" {
			flag = "--impl"
		}
		impls := e.Impls()
		head := fmt.Sprintf("%s %s", e.Name, flag)
		shown := impls
		for _, d := range done {
			// The goroutine-only rows of one experiment (latency's) do
			// not keep another that has every other row from saying so.
			above := slices.DeleteFunc(slices.Clone(d.impls), func(im driver.ImplInfo) bool { return im.GoroutinesOnly })
			if len(above) > 1 && len(above) < len(impls) && contains(impls, above) {
				head += fmt.Sprintf(": every %s implementation above", d.exp)
				if len(above) < len(d.impls) {
					head += " (not the goroutine-only ones)"
				}
				head += ", and"
				shown = slices.DeleteFunc(slices.Clone(impls), func(im driver.ImplInfo) bool { return slices.Contains(above, im) })
				break
			}
		}
		b.WriteString("\n" + head + "\n")
		nw, kw := len("NAME"), len("KIND")
		for _, im := range shown {
			nw, kw = max(nw, textfmt.Width(im.Name)), max(kw, textfmt.Width(im.Kind))
		}
		row := func(name, kind, here string) string {
			return fmt.Sprintf("  %-*s  %-*s  %-4s  ", nw, name, kw, kind, here)
		}
		hang := strings.Repeat(" ", len(row("", "", "")))
		b.WriteString(strings.TrimRight(row("NAME", "KIND", "HERE")+"WHAT IT IS", " ") + "\n")
		for _, im := range shown {
			here, what := "yes", im.Summary
			if exp, ok := firstUnder[im]; ok {
				what = "as under " + exp
			} else {
				firstUnder[im] = e.Name
			}
			if im.Why != "" {
				here = "no"
			}
			b.WriteString(textfmt.Wrap(what, textfmt.Columns, row(im.Name, im.Kind, here), hang) + "\n")
			if im.Why != "" {
				b.WriteString(textfmt.Wrap("not here: "+im.Why, textfmt.Columns, hang, hang+"  ") + "\n")
			}
		}
		done = append(done, listed{e.Name, impls})
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// contains reports whether every implementation of sub is in all.
func contains(all, sub []driver.ImplInfo) bool {
	for _, im := range sub {
		if !slices.Contains(all, im) {
			return false
		}
	}
	return true
}
