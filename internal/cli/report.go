package cli

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/report"
	"github.com/parkbench/parkbench/internal/results"
)

func init() { register(newReportCmd) }

// readResults reads result files for report, compare and plot; any file
// that cannot be read or is not a parkbench result of a known version is
// bad input (exit 2), with an error naming the file.
func readResults(paths []string) ([]results.Named, error) {
	var out []results.Named
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return nil, usagef("%s: is a directory, not a result file: give its files (%s/*/*.json)", p, strings.TrimRight(p, `/\`))
		}
		f, err := results.ReadFile(p)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, results.Named{Name: p, File: f})
	}
	return out, nil
}

func newReportCmd() *cobra.Command {
	var (
		format string
		view   report.Options
	)
	cmd := &cobra.Command{
		Use:   "report FILE...",
		Short: "Render result files as tables, markdown, CSV, JSON or benchstat input",
		Long: `Render one or more result files: per experiment, the machine, the Go runtime
settings, the options, a table of the figures (medians over rounds, with
units), the probes and the foreign CPU each configuration ran with, herd by
N, the study's claims with their verdicts, and the warnings.

--format=markdown suits a CI job summary ($GITHUB_STEP_SUMMARY).
--format=html writes one self-contained page (inline style, the plots as
SVG data: URIs, nothing fetched): the machines side by side, each file's
summary, and per experiment one plot of every file and each file's table,
claims, notes and warnings.
--format=csv writes one row per file x configuration x summary metric;
--format=json the file itself (one FILE) or an array of files (several).
--format=benchstat writes the Go benchmark format, one line per round, so
that benchstat sees the rounds as repeated runs:

  parkbench report --format=benchstat base.json > base.txt
  parkbench report --format=benchstat new.json > new.txt
  benchstat base.txt new.txt`,
		Example: `  parkbench report results/linux-amd64-2cpu-*/suite-*.json
  parkbench report --format=html base.json new.json > report.html
  parkbench report --format=markdown out/suite.json >> "$GITHUB_STEP_SUMMARY"`,
		Args: wantArgs(1, -1, "at least one result FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, report.Formats); err != nil {
				return err
			}
			files, err := readResults(args)
			if err != nil {
				return err
			}
			return report.RenderFiles(cmd.OutOrStdout(), files, format, view)
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output: "+strings.Join(report.Formats, "|"))
	addViewFlags(cmd, &view)
	return cmd
}
