package parkers

import (
	"runtime"
	"testing"
	"time"
)

func TestSmokeTmp(t *testing.T) {
	for _, b := range All() {
		if !b.Available() || b.NewThread == nil {
			continue
		}
		p := b.NewThread()
		p.PreparePark()
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			p.Park()
			close(done)
		}()
		time.Sleep(10 * time.Millisecond)
		p.UnparkLock().Unpark()
		<-done
		p.PreparePark()
		if p.ParkUntil(time.Now().Add(5 * time.Millisecond)) {
			t.Errorf("%s: unparked?", b.Name)
		}
		if !p.TimedOut() {
			t.Errorf("%s: not timed out", b.Name)
		}
		t.Logf("%s ok", b.Name)
	}
}
