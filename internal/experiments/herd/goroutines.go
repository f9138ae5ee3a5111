package herd

import (
	"slices"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// The herd between plain goroutines (--participants=goroutines): the
// waiters and the notifier of every Go implementation run as sync's
// always have (not locked, unpinned, GOMAXPROCS = NumCPU, every waiter
// counted in under the mutex plus a settle delay, since a goroutine's
// sleep cannot be seen). lot's and the futex variants' waits still put the
// goroutine's thread to sleep (their parkers are OS waits): on goroutines
// each such wait blocks an M, which is the caveat of an OS parker on a
// goroutine. sync is goroutines under either participants; keys of the
// others on goroutines are IMPL/goroutines/....

// herdThreadsOnly is why im cannot run between plain goroutines.
func herdThreadsOnly(im implSpec) string {
	switch {
	case im.c:
		return "the whole repeat runs in C threads, outside the Go scheduler"
	case im.plugin:
		return "a plugin's mutex must be unlocked by the thread that locked it (include/parkbench.h), and a plain goroutine may move to another thread in between"
	}
	return ""
}

// resolveParticipants resolves the names once per kind of participants.
// sync runs once: under threads when threads are asked for (as it always
// has), else under goroutines.
func resolveParticipants(o Options) (driver.Selection[implSpec], error) {
	return driver.ResolveByParticipants(o.Participants, o.Impls, catalog(), herdThreadsOnly, func(parts []string, part string, im implSpec) (implSpec, bool) {
		switch {
		case part == driver.Threads:
			return im, true
		case im.goroutines && slices.Contains(parts, driver.Threads):
			return im, false // sync: already in under threads, it is goroutines anyway
		case !im.goroutines:
			im.goroutines, im.onGoroutines = true, true
		}
		return im, true
	})
}

// label is the implementation as a key names it.
func (im implSpec) label() string { return driver.KeyName(im.name, im.onGoroutines) }

func participantsOf(im implSpec) string { return driver.KindOf(im.goroutines) }
