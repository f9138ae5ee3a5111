// Package report renders result files for people and tools: a table or
// markdown per experiment (machine, runtime settings, options, figures with
// units, probes, foreign CPU, claims, warnings), CSV, the result JSON
// itself, and the Go benchmark format that benchstat reads.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

// Formats lists what Render accepts.
var Formats = []string{"table", "markdown", "html", "csv", "json", "benchstat"}

// Options select how much the text formats (table, markdown) show. The
// other formats always carry everything.
type Options struct {
	// Wide adds the probe and diagnostic columns (probes, foreign CPU,
	// per-configuration details) to the tables; without it a table fits
	// about 120 columns.
	Wide bool
	// Verbose adds each claim's evidence.
	Verbose bool
	// Summary is the summary alone (per experiment its configurations,
	// claims tally and main figure, and each claim that does not hold with
	// its reason): what a quiet run prints.
	Summary bool
	// Brief is the one-screen view of `parkbench run` (Verbose undoes
	// it): per experiment its table and one line of claims by verdict
	// (the summary gives each failing one's figure and limit), without
	// the runtime settings, the notes and the line of what --wide adds.
	Brief bool
	// Preferred are the lines html's plots draw first in a crowded panel
	// (plot.Options.Preferred).
	Preferred map[string][]string
}

// Full is every column and every claim's evidence.
var Full = Options{Wide: true, Verbose: true}

// Render writes f in format.
func Render(w io.Writer, f *results.File, format string, o Options) error {
	return RenderFiles(w, []results.Named{{File: f}}, format, o)
}

// RenderFiles writes several files in format: one after the other for the
// text formats and benchstat, one CSV with a file column, and for json the
// file itself (one) or an array of files (several).
func RenderFiles(w io.Writer, files []results.Named, format string, o Options) error {
	switch format {
	case "json":
		if len(files) == 1 {
			data, err := results.Encode(files[0].File)
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		}
		fs := make([]*results.File, len(files))
		for i, n := range files {
			fs[i] = n.File
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(fs)
	case "table", "markdown":
		for i, n := range besidePort(files) {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if err := renderText(w, n, format == "markdown", o); err != nil {
				return err
			}
		}
		return nil
	case "html":
		return renderHTML(w, besidePort(files), o)
	case "csv":
		return renderCSV(w, files)
	case "benchstat":
		for i, n := range files {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if err := renderBenchstat(w, n.File); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown format %q; valid formats: %s", format, strings.Join(Formats, ", "))
}

// besidePort is files with each experiment's rows of parking_lot's own
// right after lot's (results.BesidePort), for the tables; the files
// themselves are not modified.
func besidePort(files []results.Named) []results.Named {
	out := make([]results.Named, len(files))
	for i, n := range files {
		f := *n.File
		f.Experiments = make([]*results.Experiment, len(n.File.Experiments))
		for j, e := range n.File.Experiments {
			x := *e
			x.Configs = results.BesidePort(e.Configs)
			f.Experiments[j] = &x
		}
		out[i] = results.Named{Name: n.Name, File: &f}
	}
	return out
}

// Column is one column of an experiment's table: a summary metric.
type Column struct {
	Header string
	Metric string
	Unit   string // "us", "ns", "" (plain number)
	// Diagnostic columns are shown only with Options.Wide: they tell
	// whether a figure can be trusted (did the waits sleep, who switched)
	// rather than answer the question.
	Diagnostic bool
}

// Columns returns the table columns of an experiment: its metric
// description (results.Experiment.Specs) or, for an experiment without
// one, a column per summary metric any configuration has.
func Columns(e *results.Experiment) []Column {
	if specs, ok := e.Specs(); ok {
		cols := make([]Column, 0, len(specs))
		for _, m := range specs {
			if m.Section != "" {
				continue // a table of its own (anatomy.go)
			}
			cols = append(cols, Column{m.Header, m.Key, m.Unit, m.Diagnostic})
		}
		return cols
	}
	seen := map[string]bool{}
	var cols []Column
	for _, c := range e.Configs {
		for k := range c.Summary {
			if !seen[k] {
				seen[k] = true
				unit := ""
				if strings.HasSuffix(k, "_ns") {
					unit = "us"
				}
				cols = append(cols, Column{Header: strings.TrimSuffix(k, "_ns"), Metric: k, Unit: unit})
			}
		}
	}
	sort.Slice(cols, func(i, j int) bool { return cols[i].Metric < cols[j].Metric })
	return cols
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

func unitLabel(u string) string {
	switch u {
	case "us":
		return "µs"
	}
	return u
}

// MachineSummary is the one-line description of where a file was measured.
func MachineSummary(m results.Machine) string {
	var d []string
	if m.CPUModel != "" {
		d = append(d, m.CPUModel)
	}
	d = append(d, fmt.Sprintf("%d logical CPUs", m.LogicalCPUs), m.OS+"/"+m.Arch)
	if m.Kernel != "" {
		d = append(d, "kernel "+m.Kernel)
	}
	if m.Virtualization != "" {
		d = append(d, "virtualization "+m.Virtualization)
	}
	if m.ClockSource != "" {
		d = append(d, "clock "+m.ClockSource)
	}
	if m.Governor != "" {
		d = append(d, "governor "+m.Governor)
	}
	switch {
	case m.FutexHash == "private":
		d = append(d, fmt.Sprintf("futex hash private (%d slots)", m.FutexHashSlots))
	case m.FutexHash != "":
		d = append(d, "futex hash "+m.FutexHash)
	}
	d = append(d, m.GoVersion, fmt.Sprintf("load %.2f %.2f %.2f", m.LoadAvg[0], m.LoadAvg[1], m.LoadAvg[2]))
	return m.Slug + ": " + strings.Join(d, ", ")
}

func toolSummary(t results.Tool) string {
	s := "parkbench " + t.Version
	if t.Commit != "" {
		c := t.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if t.Modified {
			c += ", modified"
		}
		s += " (" + c + ")"
	}
	return s + ", built with " + t.GoVersion
}

// RuntimeSummary describes the Go runtime settings of an experiment.
func RuntimeSummary(r results.Runtime) string {
	gc := fmt.Sprintf("GC %d%%", r.GCPercent)
	if r.GCPercent < 0 {
		gc = "GC off"
	}
	s := fmt.Sprintf("GOMAXPROCS %d, %s (%d GC cycles in measured windows)", r.GOMAXPROCS, gc, r.GCCycles)
	if r.LockOSThread {
		s += ", threads locked"
	}
	if r.SyscallMode != "" {
		s += ", syscall mode " + r.SyscallMode
	}
	s += fmt.Sprintf(", %s allocs/op", strconv.FormatFloat(r.AllocsPerOp, 'g', 3, 64))
	if r.CgoEnabled {
		s += ", cgo on"
	} else {
		s += ", cgo off"
	}
	if r.ThreadParker != "" {
		s += ", thread parker " + r.ThreadParker
	}
	return s
}

func sortedPairs(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(k + "=" + m[k])
	}
	return b.String()
}

func renderCSV(w io.Writer, files []results.Named) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"file", "machine", "experiment", "config", "impl", "placement", "metric", "value"})
	for _, n := range files {
		for _, e := range n.File.Experiments {
			for _, c := range e.Configs {
				keys := make([]string, 0, len(c.Summary))
				for k := range c.Summary {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					cw.Write([]string{n.Name, n.File.Machine.Slug, e.Name, c.Key, c.Impl, c.Placement, k, strconv.FormatFloat(c.Summary[k], 'g', -1, 64)})
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
