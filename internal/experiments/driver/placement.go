package driver

import (
	"fmt"
	"strings"

	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/probe"
)

// Placements: where the threads of a configuration run.
const (
	Unpinned  = "unpinned"   // the scheduler places every thread
	CrossCore = "cross-core" // the two sides on two different CPUs
	SameCore  = "same-core"  // every thread on one CPU
	All       = "all"        // every placement (and every implementation, for --impl)
)

// Placements lists the placements in run order.
var Placements = []string{Unpinned, CrossCore, SameCore}

// ResolvePlacements expands "all" (also for an empty list), refuses unknown
// names (field names the Options field) and returns the placements in run
// order, with the set the user named explicitly.
func ResolvePlacements(field string, names []string) ([]string, map[string]bool, error) {
	if len(names) == 0 {
		names = []string{All}
	}
	explicit := map[string]bool{}
	want := map[string]bool{}
	for _, n := range names {
		if n == All {
			for _, p := range Placements {
				want[p] = true
			}
			continue
		}
		if err := CheckChoiceOrAll(field, "placement", n, Placements); err != nil {
			return nil, nil, err
		}
		want[n] = true
		explicit[n] = true
	}
	var out []string
	for _, p := range Placements {
		if want[p] {
			out = append(out, p)
		}
	}
	return out, explicit, nil
}

// SingleCPU reports whether this process may run on one CPU only (taskset
// -c 0, a one-vCPU machine). Then nothing crosses cores, and two
// busy-waiting threads measure the scheduler's time slice, not a wake: no
// spin figure measured here is a floor.
func SingleCPU() bool {
	_, n, err := probe.CPUs()
	return err == nil && n == 1
}

// PinBlocked returns why no thread can be pinned here ("" where they can):
// where the CPU affinity cannot be read (probe.CPUs fails: every OS but
// Linux), cross-core and same-core cannot run, and a run that did not ask
// for them by name runs unpinned with this reason as a warning.
func PinBlocked() string {
	if _, _, err := probe.CPUs(); err != nil {
		return err.Error()
	}
	return ""
}

// PairCPUs pins a two-thread configuration: -1 for unpinned; cross-core on
// probe.CPUs' pair [0] and [1]; same-core both on [0]. why is non-empty
// when the placement cannot run here: one CPU (cross-core), or an affinity
// that cannot be read (both pinned placements; never taken for one CPU).
func PairCPUs(placement string) (cpus [2]int, why string) {
	if placement != CrossCore && placement != SameCore {
		return [2]int{-1, -1}, ""
	}
	d, n, err := probe.CPUs()
	if err != nil {
		return [2]int{-1, -1}, err.Error()
	}
	if placement == SameCore {
		return [2]int{d[0], d[0]}, ""
	}
	if n < 2 {
		return d, fmt.Sprintf("cross-core needs two CPUs; this process may run on %v only", d[:1])
	}
	return d, ""
}

// GroupCPUs pins one leader and n followers (herd's notifier and waiters):
// unpinned gives -1 and nil; same-core puts all on the first CPU this
// process may use; cross-core puts the leader there and the followers
// round-robin over the other allowed CPUs, so that the leader's wake and the
// first follower always cross cores.
func GroupCPUs(field, placement string, n int) (leader int, followers []int, err error) {
	if placement == Unpinned {
		return -1, nil, nil
	}
	cpus, err := osthread.Affinity()
	if err != nil || len(cpus) == 0 {
		why := PinBlocked()
		if why == "" {
			why = fmt.Sprintf("cannot read this process's CPU affinity (%v)", err)
		}
		return 0, nil, Bad(field, "placement %s: %s", placement, why)
	}
	a := cpus[0]
	followers = make([]int, n)
	switch placement {
	case SameCore:
		for i := range followers {
			followers[i] = a
		}
	case CrossCore:
		others := cpus[1:]
		if len(others) == 0 {
			return 0, nil, Bad(field, "placement cross-core needs two CPUs; this process may use only CPU %d", a)
		}
		for i := range followers {
			followers[i] = others[i%len(others)]
		}
	default:
		return 0, nil, Bad(field, "unknown placement %q; valid: %s", placement, strings.Join(Placements, ", "))
	}
	return a, followers, nil
}
