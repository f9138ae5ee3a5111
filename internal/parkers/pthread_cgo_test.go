//go:build unix && cgo

package parkers

import (
	"runtime"
	"testing"
	"time"
)

// The C half is freed by Close, or by the cleanup once the Go half is
// garbage: neither may crash, and a closed parker's cleanup must not free
// it again.
func TestPthreadCloseAndCleanup(t *testing.T) {
	for _, mode := range []pthreadMode{modeNative, modeWallclock, modeRelative} {
		p := newPthreadMode(mode)
		p.PreparePark()
		if p.ParkUntil(time.Now().Add(time.Millisecond)) {
			t.Fatal("unparked with no unpark")
		}
		p.Close()
		p.Close() // idempotent
	}
	for i := 0; i < 1000; i++ {
		p := newPthreadMode(pthreadMode(i % 3))
		p.PreparePark()
		p.UnparkLock().Unpark()
		p.Park()
	}
	runtime.GC()
	runtime.GC()
}

func TestPthreadClockKinds(t *testing.T) {
	switch runtime.GOOS {
	case "linux":
		if pthreadNativeKind != waitAbsMono {
			t.Errorf("linux native wait kind %d, want monotonic absolute", pthreadNativeKind)
		}
		if pthreadRelativeKind != waitClockMono && pthreadRelativeKind != waitAbsMono {
			t.Errorf("linux relative wait kind %d", pthreadRelativeKind)
		}
	case "darwin", "ios":
		if pthreadNativeKind != waitAbsWall || pthreadRelativeKind != waitRelNP {
			t.Errorf("apple wait kinds %d %d", pthreadNativeKind, pthreadRelativeKind)
		}
	}
}
