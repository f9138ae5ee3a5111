//go:build unix && cgo && parkchaos

package parkers

import (
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/chaos"
)

// The C-level points are compiled in and reached: a park that must wait
// calls back into chaos.Point from inside pb_park / pb_timedwait.
func TestPthreadChaosPointsInC(t *testing.T) {
	before := chaos.Calls()
	p := newPthreadMode(modeNative)
	defer p.Close()
	for _, timed := range []bool{false, true} {
		p.PreparePark()
		done := make(chan struct{})
		go func() {
			time.Sleep(2 * time.Millisecond)
			p.UnparkLock().Unpark()
			close(done)
		}()
		if timed {
			if !p.ParkUntil(time.Now().Add(time.Minute)) {
				t.Fatal("timed out")
			}
		} else {
			p.Park()
		}
		<-done
	}
	after := chaos.Calls()
	for _, name := range []string{"pthread.park.locked-before-wait", "pthread.park-until.locked-before-wait"} {
		if after[name] <= before[name] {
			t.Errorf("%s: calls %d -> %d, want more", name, before[name], after[name])
		}
	}
}
