package schedacct

import (
	"math"
	"runtime"
	"testing"
)

// Two plain goroutines ping-pong through channels at GOMAXPROCS 1 under
// the trace: every wake is seen, and none can run on another P (there is
// none). Counts only, never times.
func TestTraceWakesOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const n = 200
	a, b := make(chan int), make(chan int)
	_, w, err := TraceWakes(func() error {
		done := make(chan struct{})
		go func() {
			MarkParticipant()
			for i := 0; i < n; i++ {
				<-a
				b <- i
			}
			close(done)
		}()
		go func() {
			MarkParticipant()
			for i := 0; i < n; i++ {
				a <- i
				<-b
			}
		}()
		<-done
		return nil
	})
	if err != nil {
		t.Skip(err) // another trace running (go test -trace)
	}
	if w.Total < n {
		t.Fatalf("saw %d wakes of %d round trips, want at least %d: %+v", w.Total, n, n, w)
	}
	if w.OtherP != 0 {
		t.Errorf("GOMAXPROCS 1: %d wakes ran on another P: %+v", w.OtherP, w)
	}
	if w.SameP+w.ThreadWoken+w.NeverRan != w.Total-w.OtherP {
		t.Errorf("classes do not add up: %+v", w)
	}
}

func TestHistQuantile(t *testing.T) {
	buckets := []float64{0, 1e-6, 2e-6, math.Inf(1)}
	for _, c := range []struct {
		counts []uint64
		q      float64
		want   float64
	}{
		{[]uint64{0, 0, 0}, 0.5, -1},
		{[]uint64{10, 0, 0}, 0.5, 1000},
		{[]uint64{1, 9, 0}, 0.5, 2000},
		{[]uint64{0, 0, 5}, 0.99, 2000}, // the open bucket: its lower bound
	} {
		if got := HistQuantile(c.counts, buckets, c.q); got != c.want {
			t.Errorf("HistQuantile(%v, %v) = %v, want %v", c.counts, c.q, got, c.want)
		}
	}
}

func TestReadRuntime(t *testing.T) {
	a := ReadRuntime()
	runtime.Gosched()
	w := ReadRuntime().Since(a)
	if !w.OK || w.Goroutines == 0 || w.Threads == 0 {
		t.Errorf("runtime window %+v: want every metric", w)
	}
}
