package latency

import (
	"fmt"
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
)

// spin-1line: the spin parker's protocol, exactly as threadMech drives the
// spin backend (upstream's generic.rs: PreparePark stores should-park,
// the waiter looks at its flag again, Park spins on should-park with one
// CPURelax per turn; the waker stores the flag, then UnparkLock clears
// should-park, and the handle's Unpark does nothing), but with should-park
// in the waiter's slot, on the same cache line as its flag. spin moves two
// lines per wake (the flag's and the parker's), go-spin and c-spin one and
// no protocol: spin - spin-1line is what the second line costs, spin-1line
// - go-spin what the protocol's own stores cost on one line. A comparison,
// not a replacement: the lot needs its parkers apart from anyone's flag.
//
// No wake is lost, by threadMech's argument: should-park is stored before
// the waiter's second look at the flag and the waker clears it after
// storing the flag, all sequentially consistent.
type oneLineSpin struct{ pp *pingpong }

func (m *oneLineSpin) setup(int) {}

func (m *oneLineSpin) wait(me int) bool {
	s := &m.pp.slots[me]
	if s.flag.Load() != 0 {
		return true
	}
	for s.flag.Load() == 0 {
		s.park.Store(1) // PreparePark
		if s.flag.Load() == 0 {
			for s.park.Load() != 0 { // Park
				parkers.CPURelax(1)
			}
		}
	}
	return false
}

// wake is UnparkLock (the flag is already set); Unpark is a no-op.
func (m *oneLineSpin) wake(peer int) { m.pp.slots[peer].park.Store(0) }

func (m *oneLineSpin) immediate() uint64 { return 0 }

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
