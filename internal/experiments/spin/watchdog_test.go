package spin

import (
	"testing"
	"time"
)

// TestWatchdogVerdicts: a signal given and its wait not ended within the
// period is a lost wakeup; a long wait with no signal given is a stall
// only after StallPeriod; progress resets both.
func TestWatchdogVerdicts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	var w watchdog
	steps := []struct {
		prog, sig int64
		at        time.Duration
		want      watchVerdict
	}{
		{0, 0, 0, fine},
		{0, 0, WatchdogPeriod * 3, fine},                  // no signal yet: not lost
		{0, 1, WatchdogPeriod * 3, fine},                  // the signal is seen now
		{0, 1, WatchdogPeriod*4 + time.Millisecond, lost}, // and its wait never ended
		{1, 1, WatchdogPeriod * 5, fine},                  // it did end: reset
		{1, 1, WatchdogPeriod*5 + StallPeriod - time.Second, fine},
		{1, 1, WatchdogPeriod*5 + StallPeriod + time.Second, stalled},
	}
	for i, s := range steps {
		if got := w.look(s.prog, s.sig, at(s.at)); got != s.want {
			t.Fatalf("step %d: %v, want %v", i, got, s.want)
		}
	}
}
