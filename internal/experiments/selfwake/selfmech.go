package selfwake

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/parkers"
)

// selfMech runs n wake-then-wait pairs on the calling (participant) thread.
// Each one runs its own tight loop, so no dynamic call per pair is timed.
type selfMech interface {
	setup()
	pairs(n int)
	// slept counts waits that really slept (only c-futex knows; 0).
	slept() int
}

// selfParker is a self-wake mechanism's parker (P: a ThreadParker or a
// TokenParker), made on the measuring thread; a self-wake never sleeps.
// The timed loops (pairs) are each mechanism's own, non-generic methods.
type selfParker[P any] struct {
	new func() P
	p   P
}

func (s *selfParker[P]) setup()     { s.p = s.new() }
func (s *selfParker[P]) slept() int { return 0 }

// selfThread: PreparePark; UnparkLock().Unpark(); Park. Park returns at
// once because the UnparkLock came after the PreparePark (for futex, no
// FUTEX_WAIT is even issued: the word is already 0).
type selfThread struct {
	selfParker[parkers.ThreadParker]
}

func (s *selfThread) pairs(n int) {
	p := s.p
	for i := 0; i < n; i++ {
		p.PreparePark()
		p.UnparkLock().Unpark()
		p.Park()
	}
}

// selfToken: Unpark leaves the token; Park consumes it and returns.
type selfToken struct {
	selfParker[parkers.TokenParker]
}

func (s *selfToken) pairs(n int) {
	p := s.p
	for i := 0; i < n; i++ {
		p.Unpark()
		p.Park()
	}
}

// selfLot: UnparkOne finds nobody on the key; Park's validate returns false,
// so Park returns ParkInvalid without queueing. Both lock the key's bucket.
// With empty set (between rounds, by the controller, ordered by the
// participant's command channel) the same loop runs the empty pair
// instead: the harness floor.
type selfLot struct {
	word     uint32
	invalidV func() bool
	empty    bool
}

func (s *selfLot) setup() { s.invalidV = func() bool { return false } }
func (s *selfLot) pairs(n int) {
	key := unsafe.Pointer(&s.word)
	if s.empty {
		for i := 0; i < n; i++ {
			emptyUnparkOne(key, nil)
			emptyPark(key, s.invalidV, nil, nil, lot.DefaultParkToken, time.Time{})
		}
		return
	}
	for i := 0; i < n; i++ {
		lot.UnparkOne(key, nil)
		lot.Park(key, s.invalidV, nil, nil, lot.DefaultParkToken, time.Time{})
	}
}

// emptyUnparkOne and emptyPark are the empty pair: lot.UnparkOne's and
// lot.Park's signatures, returning at once, called as selfLot calls the
// real ones (not inlined, as those are not), so the loop around them
// costs what it costs around the real pair.
//
//go:noinline
func emptyUnparkOne(unsafe.Pointer, func(lot.UnparkResult) lot.UnparkToken) lot.UnparkResult {
	return lot.UnparkResult{}
}

//go:noinline
func emptyPark(unsafe.Pointer, func() bool, func(), func(unsafe.Pointer, bool), lot.ParkToken, time.Time) lot.ParkResult {
	return lot.ParkResult{Kind: lot.ParkInvalid}
}
func (s *selfLot) slept() int { return 0 }

// selfSyscall: one getppid per pair, the reference row.
type selfSyscall struct{}

func (selfSyscall) setup() {}
func (selfSyscall) pairs(n int) {
	for i := 0; i < n; i++ {
		trivialSyscall()
	}
}
func (selfSyscall) slept() int { return 0 }

// newSelfMech is im's timed loop, or nil for the C reference (its loop
// runs in C).
func newSelfMech(im selfwakeImpl) selfMech {
	b := im.Backend()
	switch name := im.Name(); {
	case im.Kind() == latency.KindCRef:
		return nil
	case name == ImplSyscall:
		return selfSyscall{}
	case name == latency.ImplLot:
		return &selfLot{}
	case name == latency.ImplGoFutex || name == latency.ImplGoSpin:
		return &selfTwin{futex: name == latency.ImplGoFutex}
	case name == latency.ImplSpinOneLine:
		return &selfOneLine{}
	case b.Kind != parkers.KindThread && b.NewToken != nil:
		return &selfToken{selfParker[parkers.TokenParker]{new: b.NewToken}}
	default:
		return &selfThread{selfParker[parkers.ThreadParker]{new: b.NewThread}}
	}
}

// selfOneLine is spin-1line's reverse check: PreparePark, UnparkLock, then
// Park finds the word clear.
type selfOneLine struct{ park atomic.Uint32 }

func (s *selfOneLine) setup() {}
func (s *selfOneLine) pairs(n int) {
	for i := 0; i < n; i++ {
		s.park.Store(1)
		s.park.Store(0)
		for s.park.Load() != 0 {
			parkers.CPURelax(1)
		}
	}
}
func (s *selfOneLine) slept() int { return 0 }
