package plugin

import (
	"fmt"
	"sync"
	"time"

	"github.com/parkbench/parkbench/internal/ext"
)

// The watchdog: a goroutine that looks every WatchTick at the threads in a
// plugin's blocking call (park, park_until, lock, condvar wait, lot park)
// and ends the run when one call has not returned for ext.WatchLimit(). A
// thread blocked in C cannot be taken back, so the process exits (status
// 1) with the implementation's name: a stuck park would otherwise be a run
// that never ends. No experiment parks one thread that long: latency's
// waits last microseconds, herd's and wake's waiters milliseconds, and
// timeout's deadlines are milliseconds away.

// WatchTick is how often the watchdog looks.
const WatchTick = 250 * time.Millisecond

var watchOnce sync.Once

// StartWatchdog starts the watchdog (once; Register calls it).
func StartWatchdog() {
	watchOnce.Do(func() {
		go func() {
			for range time.Tick(WatchTick) {
				d := ext.WatchLimit()
				limit := max(int(d/WatchTick), 1)
				if name, call, hung := scan(limit); hung {
					ext.Hung(fmt.Sprintf("watchdog: plugin implementation %q has been in %s for %v; "+
						"stopping the run (a thread blocked in C cannot be taken back)", name, call, d))
				}
			}
		}()
	})
}
