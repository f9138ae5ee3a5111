package selfwake

import (
	"sync/atomic"

	"github.com/parkbench/parkbench/internal/futex"
)

// selfTwin is the twins' reverse check, as cref_selfwake: go-futex does
// FUTEX_WAKE (nobody waits) and FUTEX_WAIT(word, 0) on a word that is 1,
// which the kernel answers with EAGAIN at once; go-spin stores the flag and
// finds it set.
type selfTwin struct {
	futex bool
	word  atomic.Int32
	n     int // waits that slept
}

func (s *selfTwin) setup() { s.word.Store(1) }
func (s *selfTwin) pairs(n int) {
	for i := 0; i < n; i++ {
		if s.futex {
			futex.Wake(&s.word, 1)
			if e := futex.Wait(&s.word, 0, nil); e == 0 {
				s.n++
			}
		} else {
			s.word.Store(1)
			for s.word.Load() == 0 {
			}
		}
	}
}
func (s *selfTwin) slept() int { return s.n }
