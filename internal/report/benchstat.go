package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/parkbench/parkbench/internal/results"
)

// benchUnits maps an experiment's metrics to Go benchmark units, from its
// metric description (MetricSpec.Benchstat). The metric in ns/op (benchstat
// shows it as sec/op, its headline unit) comes first; the others keep their
// name in the unit so that benchstat tables stay apart: "p99-ns/op" is the
// p99 of the round, in ns.
func benchUnits(e *results.Experiment) [][2]string {
	specs, _ := e.Specs()
	var units [][2]string
	for _, m := range specs {
		if m.Benchstat == "" {
			continue
		}
		u := [2]string{m.Key, m.Benchstat}
		if m.Benchstat == "ns/op" {
			units = append([][2]string{u}, units...)
		} else {
			units = append(units, u)
		}
	}
	return units
}

// benchName makes a benchmark name without spaces: Benchmark<Experiment>/<key>,
// key parts kept as sub-benchmark names (futex/cross-core, lot/n=16).
func benchName(exp, key string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return '_'
			}
			return r
		}, s)
	}
	name := "Benchmark" + strings.ToUpper(exp[:1]) + clean(exp[1:])
	if key != "" {
		name += "/" + clean(key)
	}
	return name
}

// renderBenchstat writes one benchmark line per round, so benchstat sees the
// rounds as repeated runs. The config lines goos/goarch/cpu are the machine
// fingerprint; pkg names the experiment, so each gets its own table.
//
//	BenchmarkLatency/futex/cross-core-4  20000  48123 ns/op  95012 p99-ns/op ...
func renderBenchstat(w io.Writer, f *results.File) error {
	cpu := f.Machine.CPUModel
	if cpu == "" {
		cpu = "unknown"
	}
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\ncpu: %s\nmachine: %s\n", f.Machine.OS, f.Machine.Arch, cpu, f.Machine.Slug)
	for _, e := range f.Experiments {
		units := benchUnits(e)
		if units == nil || e.Name == "" {
			continue
		}
		fmt.Fprintf(w, "pkg: parkbench/%s\n", e.Name)
		procs := ""
		if e.Runtime.GOMAXPROCS > 1 {
			procs = "-" + strconv.Itoa(e.Runtime.GOMAXPROCS)
		}
		for _, c := range e.Configs {
			name := benchName(e.Name, c.Key) + procs
			for _, r := range c.Rounds {
				var b strings.Builder
				for _, u := range units {
					if v, ok := r.Metrics[u[0]]; ok {
						fmt.Fprintf(&b, "\t%s %s", strconv.FormatFloat(v, 'f', -1, 64), u[1])
					}
				}
				if b.Len() == 0 {
					continue
				}
				n := int64(r.Metrics[results.MSamples])
				if n <= 0 {
					n = 1
				}
				fmt.Fprintf(w, "%s\t%d%s\n", name, n, b.String())
			}
		}
	}
	return nil
}
