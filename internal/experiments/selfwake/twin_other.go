//go:build !linux

package selfwake

// On other systems the twins are never built into a run (unavailable);
// this only satisfies the compiler.
type selfTwin struct{ futex bool }

func (s *selfTwin) setup()     {}
func (s *selfTwin) pairs(int)  {}
func (s *selfTwin) slept() int { return 0 }
