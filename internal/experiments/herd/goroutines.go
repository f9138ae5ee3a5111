package herd

import (
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
	case im.ext:
		return "a plugin's lock and condvar are C code that may need the thread that locked them"
	}
	return ""
}

// resolveParticipants resolves the names once per kind of participants.
// sync runs once: under threads when threads are asked for (as it always
// has), else under goroutines.
func resolveParticipants(o Options) (driver.Selection[implSpec], error) {
	parts, err := driver.ResolveParticipants("Participants", o.Participants)
	if err != nil {
		return driver.Selection[implSpec]{}, err
	}
	var out driver.Selection[implSpec]
	withThreads := false
	for _, part := range parts {
		sel, err := driver.ForParticipants(catalog(), part, herdThreadsOnly).Resolve("Impls", o.Impls)
		if err != nil {
			return out, err
		}
		if part == driver.Threads {
			withThreads = true
			out.Items = append(out.Items, sel.Items...)
			out.Warnings, out.Notes = append(out.Warnings, sel.Warnings...), append(out.Notes, sel.Notes...)
			out.Explicit = sel.Explicit
			continue
		}
		for _, im := range sel.Items {
			if im.goroutines && withThreads {
				continue // sync: already in, it is goroutines anyway
			}
			if !im.goroutines {
				im.goroutines, im.onGoroutines = true, true
			}
			out.Items = append(out.Items, im)
		}
		out.Warnings = append(out.Warnings, driver.CollapseThreadsOnly(sel.Warnings)...)
		out.Notes = append(out.Notes, sel.Notes...)
		out.Explicit = sel.Explicit
	}
	return out, nil
}

// label is the implementation as a key names it.
func (im implSpec) label() string {
	if im.onGoroutines {
		return im.name + "/" + driver.Goroutines
	}
	return im.name
}

func participantsOf(im implSpec) string {
	if im.goroutines {
		return driver.Goroutines
	}
	return driver.Threads
}
