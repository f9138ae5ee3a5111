package timeout

import (
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/parkers"
)

// timedWaiter is one mechanism's timed wait on the measuring thread. wait
// blocks until deadline (nobody wakes it) and reports whether the mechanism
// claimed it was woken instead of timing out.
type timedWaiter struct {
	wait  func(deadline time.Time) (woken bool)
	close func()
}

// mechanism is one measurable mechanism.
type mechanism struct {
	name string
	kind string // parkers.Kind, "lot" or "reference"
	// kernelTimed: the wait is a kernel timer of the measuring thread, so
	// its timer slack applies (false for spinning, yielding and
	// goroutine-level waits).
	kernelTimed bool
	why         func() error
	// params adds configuration facts (the lot's parker backend).
	params func() map[string]string
	// newWaiter runs on the measuring thread.
	newWaiter func() timedWaiter
	// summary is one line for `parkbench list`.
	summary string
}

// extraMechanisms are added by other files (lot, nanosleep); lotParker is
// the parker the lot runs on.
var extraMechanisms []func(lotParker parkers.Backend) mechanism

// mechanisms returns every mechanism in list order: the parkers
// (minus the "default" alias; the registered implementations' after the
// built-in ones), then the lot (over lotParker), then references.
func mechanisms(lotParker parkers.Backend) []mechanism {
	var out []mechanism
	for _, b := range ext.Parkers() {
		if b.Name == parkers.NameDefault {
			continue
		}
		if ti, ok := backendMechanism(b); ok {
			out = append(out, ti)
		}
	}
	for _, f := range extraMechanisms {
		out = append(out, f(lotParker))
	}
	return out
}

func backendMechanism(b parkers.Backend) (mechanism, bool) {
	ti := mechanism{name: b.Name, kind: string(b.Kind), why: b.Unavailable, summary: b.Summary,
		kernelTimed: b.Sleeps && b.Kind != parkers.KindGoroutine}
	// Token parkers (std, crossbeam, chan, cond) also offer a ThreadParker
	// adapter; their own ParkDeadline is what is measured.
	switch {
	case b.NewToken != nil && b.Kind != parkers.KindThread:
		ti.newWaiter = func() timedWaiter {
			p := b.NewToken()
			return timedWaiter{wait: p.ParkDeadline, close: func() { closeIfCloser(p) }}
		}
	case b.NewThread != nil:
		ti.newWaiter = func() timedWaiter {
			p := b.NewThread()
			return timedWaiter{
				wait: func(d time.Time) bool {
					p.PreparePark()
					if p.ParkUntil(d) {
						return true
					}
					return !p.TimedOut()
				},
				close: func() { closeIfCloser(p) },
			}
		}
	default:
		return ti, false
	}
	return ti, true
}

// closeIfCloser frees a parker's resources now (pthread's C memory) if it can.
func closeIfCloser(p any) {
	if c, ok := p.(interface{ Close() }); ok {
		c.Close()
	}
}

func (ti mechanism) info() driver.ImplInfo {
	return driver.ImplInfo{Name: ti.name, Kind: ti.kind, Summary: ti.summary, Why: driver.Why(ti.why)}
}

// catalog is the mechanisms, with the lot's over lotParker; the alias
// "lot" names the three lot-* ones, as latency's --impl lot names the lot.
func catalog(lotParker parkers.Backend) driver.Catalog[mechanism] {
	all := mechanisms(lotParker)
	lot := driver.Alias{Name: "lot"}
	for _, ti := range all {
		if ti.kind == "lot" {
			lot.Names = append(lot.Names, ti.name)
		}
	}
	return driver.Catalog[mechanism]{Items: all, Info: mechanism.info, Aliases: []driver.Alias{lot}}
}

// Impls describes every mechanism timeout accepts (besides the aliases
// "all" and "lot", the three lot-* ones), in list order.
func Impls() []driver.ImplInfo { return catalog(lot.CurrentBackend()).Infos() }

// ImplNames lists every --impl name of the timeout experiment.
func ImplNames() []string { return catalog(lot.CurrentBackend()).Names() }
