package parkers

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// watchdog is the upper bound for anything that should happen "at once" or
// "soon": generous, so it only ever fires on a lost wakeup or a hang, never
// on a slow machine.
const watchdog = 5 * time.Second

func TestMain(m *testing.M) {
	// The thread model: enough Ps that no woken thread waits for one
	// (futex-raw threads keep their P while they sleep).
	if runtime.GOMAXPROCS(0) < 8 {
		runtime.GOMAXPROCS(8)
	}
	os.Exit(m.Run())
}

// onThread runs fn on a new goroutine locked to its OS thread (the thread
// model: every participant is such a pair) and returns a channel closed when
// fn returns; a panic in fn is delivered on the channel as an error.
func onThread(fn func()) <-chan error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
			close(done)
		}()
		fn()
	}()
	return done
}

// wait waits for a thread started by onThread, failing the test with what
// if it has not finished within the watchdog.
func wait(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(watchdog):
		t.Fatalf("%s: still blocked after %v: lost wakeup or hang", what, watchdog)
	}
}

// watchProgress waits for done while *progress keeps moving; if it stalls
// for the watchdog period the test fails at once with a clear message
// instead of hanging until go test's timeout.
func watchProgress(t *testing.T, done <-chan error, progress *atomic.Int64, what string) {
	t.Helper()
	last, since := progress.Load(), time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err, ok := <-done:
			if ok && err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			return
		case <-tick.C:
			if n := progress.Load(); n != last {
				last, since = n, time.Now()
			} else if time.Since(since) > watchdog {
				t.Fatalf("%s: no progress for %v at cycle %d: lost wakeup", what, watchdog, n)
			}
		}
	}
}
