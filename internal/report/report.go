// Package report renders result files for people and tools: a table or
// markdown per experiment with the claims and warnings, CSV, the result JSON
// itself, and the Go benchmark format that benchstat reads.
package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"

	"github.com/parkbench/parkbench/internal/results"
)

// Formats lists what Render accepts.
var Formats = []string{"table", "markdown", "csv", "json", "benchstat"}

// Render writes f in format.
func Render(w io.Writer, f *results.File, format string) error {
	switch format {
	case "json":
		data, err := results.Encode(f)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	case "table", "markdown":
		return renderText(w, f, format == "markdown")
	case "csv":
		return renderCSV(w, f)
	case "benchstat":
		return renderBenchstat(w, f)
	}
	return fmt.Errorf("unknown format %q; valid formats: %s", format, strings.Join(Formats, ", "))
}

// Column is one column of an experiment's table: a summary metric.
type Column struct {
	Header string
	Metric string
	Unit   string // "us", "ns", "" (plain number)
}

// Columns returns the table columns of an experiment.
func Columns(exp string) []Column {
	switch exp {
	case "latency":
		return []Column{{"min", results.MMin, "us"}, {"median", results.MMedian, "us"}, {"p99", results.MP99, "us"}, {"p99.9", results.MP999, "us"}, {"max", results.MMax, "us"}, {"no-sleep", results.MNoSleep, ""}, {"csw/rt self", results.MCtxSwSelf, ""}, {"csw/rt thr", results.MCtxSwThread, ""}}
	case "selfwake":
		return []Column{{"ns/pair", results.MNsPerPair, "ns"}}
	case "herd":
		return []Column{{"return", results.MReturn, ""}, {"first", results.MFirstNs, "us"}, {"total", results.MTotalNs, "us"}, {"csw proc", results.MCtxSwProc, ""}, {"csw parts", results.MCtxSwParts, ""}, {"unparked", results.MUnparked, ""}, {"requeued", results.MRequeued, ""}}
	case "timeout":
		// "early_returns" and "timerslack_ns" are experiments.MEarly and
		// experiments.MSlack (report does not import experiments).
		return []Column{{"min late", results.MMin, "us"}, {"median late", results.MMedian, "us"}, {"p99 late", results.MP99, "us"}, {"max late", results.MMax, "us"}, {"early", "early_returns", ""}, {"slack ns", "timerslack_ns", ""}}
	}
	return nil
}

// FormatValue renders a metric value in a column's unit.
func FormatValue(v float64, unit string) string {
	switch unit {
	case "us":
		return strconv.FormatFloat(v/1000, 'f', 2, 64)
	case "ns":
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func renderText(w io.Writer, f *results.File, md bool) error {
	for _, e := range f.Experiments {
		title := fmt.Sprintf("%s on %s (%s/%s, %d CPUs, Go %s)", e.Name, f.Machine.Hostname, f.Machine.OS, f.Machine.Arch, f.Machine.LogicalCPUs, f.Machine.GoVersion)
		if md {
			fmt.Fprintf(w, "### %s\n\n", title)
		} else {
			fmt.Fprintf(w, "%s\n", title)
		}
		cols := Columns(e.Name)
		header := []any{"config"}
		for _, c := range cols {
			h := c.Header
			if c.Unit != "" {
				h += " (" + c.Unit + ")"
			}
			header = append(header, h)
		}
		var opts []tablewriter.Option
		if md {
			opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
		}
		t := tablewriter.NewTable(w, opts...)
		t.Header(header...)
		for _, c := range e.Configs {
			row := []any{c.Key}
			for _, col := range cols {
				v, ok := c.Summary[col.Metric]
				if !ok {
					row = append(row, "-")
					continue
				}
				row = append(row, FormatValue(v, col.Unit))
			}
			if err := t.Append(row...); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		for _, c := range e.Claims {
			fmt.Fprintf(w, "%sclaim %s: %s — %s (%s)\n", bullet(md), c.ID, c.Statement, strings.ToUpper(c.Verdict), c.Evidence)
		}
		for _, n := range e.Notes {
			fmt.Fprintf(w, "%snote: %s\n", bullet(md), n)
		}
		for _, wn := range e.Warnings {
			fmt.Fprintf(w, "%swarning: %s\n", bullet(md), wn)
		}
		for _, c := range e.Configs {
			for _, wn := range c.Warnings {
				fmt.Fprintf(w, "%swarning: %s: %s\n", bullet(md), c.Key, wn)
			}
		}
		fmt.Fprintln(w)
	}
	for _, wn := range f.Warnings {
		fmt.Fprintf(w, "%swarning: %s\n", bullet(md), wn)
	}
	return nil
}

func bullet(md bool) string {
	if md {
		return "- "
	}
	return "  "
}

func renderCSV(w io.Writer, f *results.File) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"experiment", "config", "impl", "placement", "metric", "value"})
	for _, e := range f.Experiments {
		for _, c := range e.Configs {
			keys := make([]string, 0, len(c.Summary))
			for k := range c.Summary {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				cw.Write([]string{e.Name, c.Key, c.Impl, c.Placement, k, strconv.FormatFloat(c.Summary[k], 'g', -1, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// renderBenchstat writes one benchmark line per round, so benchstat sees the
// rounds as repeated runs: BenchmarkLatency/futex/cross-core 10000 1234 ns/op ...
func renderBenchstat(w io.Writer, f *results.File) error {
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\ncpu: %s\npkg: parkbench\n", f.Machine.OS, f.Machine.Arch, f.Machine.CPUModel)
	for _, e := range f.Experiments {
		for _, c := range e.Configs {
			name := "Benchmark" + strings.ToUpper(e.Name[:1]) + e.Name[1:] + "/" + strings.ReplaceAll(c.Key, " ", "_")
			for _, r := range c.Rounds {
				n := int64(r.Metrics[results.MSamples])
				if n <= 0 {
					n = 1
				}
				fmt.Fprintf(w, "%s\t%d", name, n)
				for _, col := range Columns(e.Name) {
					if v, ok := r.Metrics[col.Metric]; ok && (col.Unit == "us" || col.Unit == "ns") {
						fmt.Fprintf(w, "\t%s %s", strconv.FormatFloat(v, 'f', -1, 64), benchUnit(col))
					}
				}
				fmt.Fprintln(w)
			}
		}
	}
	return nil
}

func benchUnit(c Column) string {
	if c.Metric == results.MMedian || c.Metric == results.MNsPerPair {
		return "ns/op"
	}
	return strings.TrimSuffix(c.Metric, "_ns") + "-ns/op"
}
