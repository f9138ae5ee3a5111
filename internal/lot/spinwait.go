package lot

// SpinWait is parking_lot_core's SpinWait: a counter for exponential
// back-off in spin loops. The zero value is ready to use; it belongs to one
// thread (not safe for concurrent use).
type SpinWait struct {
	counter uint32
}

// Reset resets the counter to its initial state.
func (s *SpinWait) Reset() { s.counter = 0 }

// Spin spins until the caller should go to sleep, as upstream's spin():
// false once the counter reached 10; otherwise the counter is incremented
// and, for the first 3 rounds, 1<<counter relax instructions are executed
// (2, 4, 8), then each later round yields the thread (7 yields). It
// returns true while spinning is still worthwhile.
//
// Upstream's doc comment says "This function returns true if ...
// spinning ... is still worthwhile; false means park now".
func (s *SpinWait) Spin() bool {
	if s.counter >= 10 {
		return false
	}
	s.counter++
	if s.counter <= 3 {
		cpuRelax(1 << s.counter)
	} else {
		threadYield()
	}
	return true
}

// SpinNoYield spins without yielding the thread, for when yielding is not
// possible; the counter saturates at 10, so one call spins at most 1024
// relax iterations.
func (s *SpinWait) SpinNoYield() {
	s.counter++
	if s.counter > 10 {
		s.counter = 10
	}
	cpuRelax(1 << s.counter)
}
