package pingpong

import (
	"github.com/parkbench/parkbench/internal/parkers"
)

// OneLineSpin is spin-1line's mechanism (oneLineSpin): the spin parker's
// protocol, exactly as parkerMech drives the spin backend (upstream's
// generic.rs: PreparePark stores should-park, the waiter looks at its flag
// again, Park spins on should-park with one CPURelax per turn; the waker
// stores the flag, then UnparkLock clears should-park, and the handle's
// Unpark does nothing), but with should-park in the waiter's slot, on the
// same cache line as its flag. spin moves two
// lines per wake (the flag's and the parker's), go-spin and c-spin one and
// no protocol: spin - spin-1line is what the second line costs, spin-1line
// - go-spin what the protocol's own stores cost on one line. A comparison,
// not a replacement: the lot needs its parkers apart from anyone's flag.
//
// No wake is lost, by parkerMech's argument: should-park is stored before
// the waiter's second look at the flag and the waker clears it after
// storing the flag, all sequentially consistent.
func OneLineSpin(pp *pingpong) mechanism { return &oneLineSpin{plain{pp}} }

type oneLineSpin struct{ plain }

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
