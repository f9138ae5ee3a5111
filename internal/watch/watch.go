// Package watch is the one watchdog over every foreign call: each call a
// Go thread makes into a plugin (internal/plugin's trampolines) and each
// C-thread row's loop over a plugin's functions (internal/cref) keeps a
// slot that says it is in the library's code and whose code it is
// (watch.h). A goroutine looks at every slot four times a second and,
// when one has been in the same call (or in a loop that has not moved) for
// Limit, reports it by name and ends the run (status 1): a thread blocked
// in a library cannot be taken back.
//
// What it costs the measured path is two relaxed stores per call to the
// thread's own slot, or one per iteration of a C-thread loop
// (docs/plugins.md, "What the watchdog costs").
//
// It also names the library and the implementation when one crashes: a
// signal handler, installed after Go's, writes one line and passes the
// signal on to Go (watch.c).
package watch

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/parkbench/parkbench/internal/undo"
)

// EnvVar sets Limit (a Go duration, at least Tick): how long one foreign
// call may last before the run is stopped.
const EnvVar = "PARKBENCH_WATCHDOG"

// DefaultLimit is Limit unless EnvVar sets it. No experiment keeps a
// thread in one call that long: latency's waits last microseconds, herd's
// and wake's milliseconds, timeout's deadlines are milliseconds away, and a
// C-thread loop finishes an iteration in microseconds.
const DefaultLimit = 30 * time.Second

// Tick is how often the watchdog looks.
const Tick = 250 * time.Millisecond

var (
	mu      sync.Mutex
	limit   = DefaultLimit
	onHung  = exitHung
	excused = map[string]bool{}
	started sync.Once
)

// exitHung is what a hung call does by default: the message, what the run
// changed put back (internal/undo), status 1.
func exitHung(msg string) {
	fmt.Fprintln(os.Stderr, "parkbench: "+msg)
	undo.Exit(1)
}

// ParseEnv reads EnvVar (unset or empty: DefaultLimit) and sets Limit; a
// bad value is an error naming it.
func ParseEnv() error {
	v := os.Getenv(EnvVar)
	if v == "" {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < Tick {
		return fmt.Errorf("$%s=%q: want a duration of at least %v (e.g. 10s)", EnvVar, v, Tick)
	}
	mu.Lock()
	limit = d
	mu.Unlock()
	return nil
}

// Limit is how long one foreign call may last.
func Limit() time.Duration {
	mu.Lock()
	defer mu.Unlock()
	return limit
}

// Set replaces the limit and what a hung call does (tests) and returns
// what puts them back.
func Set(l time.Duration, hung func(msg string)) (restore func()) {
	mu.Lock()
	defer mu.Unlock()
	pl, ph := limit, onHung
	limit, onHung = l, hung
	return func() {
		mu.Lock()
		defer mu.Unlock()
		limit, onHung = pl, ph
	}
}

// Excuse stops the watchdog reporting impl's parker and lot calls: a parker
// refused by its conformance check may have left a thread blocked in it
// (the check gives up on a step after its limit; the thread cannot be taken
// back), and the run goes on without that parker. Its other calls (its
// mutex's, its condvar's) are still watched.
func Excuse(impl string) {
	mu.Lock()
	defer mu.Unlock()
	excused[impl] = true
}

// parkerCall reports whether op (a slot's operation name) is a parker's or
// a lot's.
func parkerCall(op string) bool {
	return strings.Contains(op, "park") || op == "prepare" || strings.HasPrefix(op, "lot ") ||
		strings.Contains(op, "ping-pong") || strings.Contains(op, "self-wake")
}

// Start starts the watchdog (once; loading a plugin does) and installs the
// crash note.
func Start() {
	started.Do(func() {
		installCrashNote()
		go func() {
			for range time.Tick(Tick) {
				d := Limit()
				looks := max(int(d/Tick), 1)
				for {
					impl, lib, op, hung := scan(looks)
					if !hung {
						break
					}
					mu.Lock()
					skip, h := excused[impl] && parkerCall(op), onHung
					mu.Unlock()
					if skip {
						continue
					}
					h(fmt.Sprintf("watchdog: implementation %q (%s) has been in %s for %v; stopping the run "+
						"(a thread blocked in a library cannot be taken back)", impl, lib, op, d))
				}
			}
		}()
	})
}
