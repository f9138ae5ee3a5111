package loaded

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestClosedLoopSurvivesSpuriousPosts: wakes with nothing queued (a stale
// poster's CAS landing on a later sleep, mech.go) do not put a worker on
// the message thread's list twice. A poster hammers every worker's slot
// for the whole round. Before the fix a worker pushed itself once per
// wake, so it sat on the list twice: the message thread gave it two
// requests (or, walking a next pointer rewritten under it, skipped the
// workers behind), and -race saw the pointer written under the message
// thread's read (CI, TestRunEveryMechanism). With the fix undone, two
// runs of this test failed 7 of 7 mechanisms, then 6 of 7.
func TestClosedLoopSurvivesSpuriousPosts(t *testing.T) {
	o := QuickOptions()
	o.Loads, o.Multiples, o.Closed = nil, nil, true
	o.Warmup, o.Duration, o.Rounds = 5*time.Millisecond, 60*time.Millisecond, 1
	var spurious, twice atomic.Int64
	roundStarted = func(m *mechanism, ws []*worker, stop *atomic.Bool) {
		go func() {
			for !stop.Load() {
				for _, w := range ws {
					if m.post(&w.s) {
						spurious.Add(1)
					}
					// A closed-loop worker has at most one request: it
					// is on the list once.
					if w.q.size() > 1 {
						twice.Add(1)
					}
				}
			}
		}()
	}
	defer func() { roundStarted = nil }()
	for _, im := range Impls() {
		if im.Why != "" {
			continue
		}
		o.Impls = []string{im.Name}
		t.Run(im.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			before := spurious.Load()
			twice.Store(0)
			if _, err := Run(ctx, o, nil); err != nil {
				t.Fatal(err)
			}
			if n := twice.Load(); n > 0 {
				t.Errorf("a worker held two requests %d times: it was on the message thread's list twice", n)
			}
			t.Logf("%d extra posts (the hammer's)", spurious.Load()-before)
		})
	}
}
