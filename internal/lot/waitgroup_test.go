package lot

import (
	"strings"
	"sync"
	"testing"
)

// Ports of crossbeam-utils tests/wait_group.rs (THREADS = 10). Upstream's
// "after 100 ms nothing has arrived" check in `wait` is kept without the
// sleep: nothing may arrive before the main handle is released, whenever
// we look.

const wgThreads = 10

func TestWaitGroupWait(t *testing.T) {
	participant(t)
	wg := NewWaitGroup()
	tx := make(chan struct{}, wgThreads)
	var join sync.WaitGroup
	for i := 0; i < wgThreads; i++ {
		w := wg.Clone()
		goThread(t, &join, func() {
			w.Wait()
			tx <- struct{}{}
		})
	}
	until(t, "clones waiting", func() bool { return numParked(ptrOf(&wg.inner.cvar)) == wgThreads })
	// Nobody may get through Wait before the main handle is released.
	select {
	case <-tx:
		t.Fatal("a Wait returned while the main handle was live")
	default:
	}
	if wg.Count() != 1 {
		t.Fatalf("count %d, want 1 (the main handle)", wg.Count())
	}
	wg.Wait()
	waitTimeout(t, &join, "WaitGroup waiters")
	for i := 0; i < wgThreads; i++ {
		<-tx
	}
}

func TestWaitGroupWaitAndDrop(t *testing.T) {
	participant(t)
	wg, wg2 := NewWaitGroup(), NewWaitGroup()
	tx := make(chan struct{}, wgThreads)
	var join sync.WaitGroup
	for i := 0; i < wgThreads; i++ {
		w, w2 := wg.Clone(), wg2.Clone()
		goThread(t, &join, func() {
			w2.Wait()
			tx <- struct{}{}
			w.Done()
		})
	}
	if len(tx) != 0 {
		t.Fatal("message sent before wg2's main handle was released")
	}
	wg2.Done()
	wg.Wait()
	waitTimeout(t, &join, "WaitGroup threads")
	if len(tx) != wgThreads {
		t.Fatalf("%d messages after wg.Wait, want %d", len(tx), wgThreads)
	}
}

func TestWaitGroupMisuse(t *testing.T) {
	participant(t)
	wg := NewWaitGroup()
	if s := wg.String(); s != "WaitGroup { count: 1 }" {
		t.Fatalf("String = %q", s)
	}
	c := wg.Clone()
	c.Done()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "already released") {
			t.Fatalf("second Done: %v", r)
		}
		wg.Wait() // count 1 -> 0, returns at once
	}()
	c.Done()
}
