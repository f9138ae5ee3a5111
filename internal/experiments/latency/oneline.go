package latency

import (
	"fmt"
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
)

// SpinLineNotes is the spin floor split into its parts, one line per
// placement where spin, spin-1line and c-spin (or go-spin) were all
// measured: how much of spin's gap to the bare busy-wait the second cache
// line accounts for.
func SpinLineNotes(lat *results.Experiment) []string {
	var out []string
	for _, p := range placementsOf(lat) {
		med := func(impl string) float64 {
			if c := findConfig(lat, impl, p); c != nil {
				return c.Summary[results.MMedian]
			}
			return 0
		}
		spin, one := med(parkers.NameSpin), med(ImplSpinOneLine)
		floorImpl, floor := ImplCSpin, med(ImplCSpin)
		if floor <= 0 {
			floorImpl, floor = ImplGoSpin, med(ImplGoSpin)
		}
		if spin <= 0 || one <= 0 || floor <= 0 {
			continue
		}
		line := fmt.Sprintf("the spin floor, %s: spin %s, spin-1line %s, %s %s", p, fmtNs(spin), fmtNs(one), floorImpl, fmtNs(floor))
		if g := med(ImplGoSpin); g > 0 && floorImpl != ImplGoSpin {
			line += ", go-spin " + fmtNs(g)
		}
		line += fmt.Sprintf("; spin/%s %.2fx, spin-1line/%s %.2fx", floorImpl, spin/floor, floorImpl, one/floor)
		if gap := spin - floor; gap > 0 {
			line += fmt.Sprintf("; the second cache line is %.0f%% of spin's gap to %s", 100*(spin-one)/gap, floorImpl)
		}
		if p == driver.Unpinned {
			line += " (unpinned: where the scheduler put the threads)"
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}
