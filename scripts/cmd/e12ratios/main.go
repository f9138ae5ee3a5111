// Command e12ratios reads a parkbench result file (JSON, stdin or the files
// named) and prints E12's target ratios: each Go implementation's one-way
// median and p99 against the C reference measured in the same run, per
// placement.
//
//	parkbench latency --impl=futex,c-futex,spin,c-spin --format=json | go run ./scripts/cmd/e12ratios
//
// scripts/figures.sh e12 runs the latency command and this on each run.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/parkbench/parkbench/internal/results"
)

// pairs: Go implementation -> the C reference it is judged against.
var pairs = []struct{ goImpl, ref string }{
	{"futex", "c-futex"},
	{"futex-raw", "c-futex"},
	{"go-futex", "c-futex"},
	{"spin", "c-spin"},
	{"go-spin", "c-spin"},
}

// target: the Go median within 10% of C's.
const target = 1.10

func main() {
	var inputs [][]byte
	if len(os.Args) > 1 {
		for _, p := range os.Args[1:] {
			b, err := os.ReadFile(p)
			if err != nil {
				fail(err)
			}
			inputs = append(inputs, b)
		}
	} else {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			fail(err)
		}
		inputs = append(inputs, b)
	}
	all := map[string][]float64{}
	var order []string
	for _, b := range inputs {
		f, err := results.Decode(b)
		if err != nil {
			fail(err)
		}
		for _, e := range f.Experiments {
			if e.Name == "latency" {
				for k, v := range report(e) {
					if _, ok := all[k]; !ok {
						order = append(order, k)
					}
					all[k] = append(all[k], v)
				}
			}
		}
	}
	if len(inputs) > 1 {
		sort.Strings(order)
		fmt.Printf("\nmedian over %d runs of the per-run median ratio:\n", len(inputs))
		for _, k := range order {
			vs := all[k]
			sort.Float64s(vs)
			fmt.Printf("  %-32s %.3f  (runs: %v)\n", k, vs[len(vs)/2], fmtList(vs))
		}
	}
}

func fmtList(vs []float64) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.3f", v)
	}
	return s
}

// report prints one run's table and returns its median ratios by
// "placement impl/ref".
func report(e *results.Experiment) map[string]float64 {
	out := map[string]float64{}
	find := func(impl, place string) *results.Config {
		for _, c := range e.Configs {
			if c.Impl == impl && c.Placement == place && (c.Params["gap"] == "" || c.Params["gap"] == "0s") {
				return c
			}
		}
		return nil
	}
	places := []string{}
	for _, c := range e.Configs {
		if !contains(places, c.Placement) {
			places = append(places, c.Placement)
		}
	}
	fmt.Printf("%-12s %-10s %-8s %12s %12s %10s %10s  %s\n", "placement", "impl", "vs", "median ns", "p99 ns", "median x", "p99 x", "target (median <= 1.10x)")
	for _, p := range places {
		for _, pr := range pairs {
			g, c := find(pr.goImpl, p), find(pr.ref, p)
			if g == nil || c == nil {
				continue
			}
			gm, cm := g.Summary[results.MMedian], c.Summary[results.MMedian]
			g99, c99 := g.Summary[results.MP99], c.Summary[results.MP99]
			verdict := "met"
			if gm > target*cm {
				verdict = "NOT met"
			}
			fmt.Printf("%-12s %-10s %-8s %12.0f %12.0f %10.3f %10.3f  %s (C: %.0f / %.0f ns)\n", p, pr.goImpl, pr.ref, gm, g99, gm/cm, g99/c99, verdict, cm, c99)
			out[p+" "+pr.goImpl+"/"+pr.ref] = gm / cm
		}
	}
	return out
}

func contains(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "e12ratios:", err)
	os.Exit(1)
}
