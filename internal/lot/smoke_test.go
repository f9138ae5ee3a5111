package lot

import (
	"sync"
	"testing"
)

func TestSmokeMutexCondvar(t *testing.T) {
	participant(t)
	withBackend(t, chanBackend, func(t *testing.T) {
		var m Mutex
		var c Condvar
		var wg sync.WaitGroup
		ready := false
		counter := 0
		const n = 8
		for i := 0; i < n; i++ {
			goThread(t, &wg, func() {
				m.Lock()
				for !ready {
					c.Wait(&m)
				}
				counter++
				m.Unlock()
			})
		}
		until(t, "all waiters parked", func() bool { return numParked(ptrOf(&c)) == n })
		m.Lock()
		ready = true
		if got := c.NotifyAll(); got != n {
			t.Errorf("NotifyAll = %d, want %d", got, n)
		}
		m.Unlock()
		waitTimeout(t, &wg, "waiters")
		if counter != n {
			t.Fatalf("counter = %d", counter)
		}
	})
}
