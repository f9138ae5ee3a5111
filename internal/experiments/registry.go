package experiments

import (
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/e12"
	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/experiments/stacks"
	"github.com/parkbench/parkbench/internal/experiments/timeout"
)

// Entry is one experiment for `parkbench list`: its command, a one-line
// summary, and every implementation its --impl (stacks: --mech) accepts.
type Entry struct {
	Name, Summary string
	// Impls is nil for the suite, which takes no --impl.
	Impls func() []driver.ImplInfo
}

// Registry lists the experiments in display order, the suite last.
var Registry = []Entry{
	{"latency", "E12: ping-pong one-way wake latency per parker (median, p99 from HDR histograms, 3 rounds)", e12.Impls},
	{"selfwake", "E12 reverse check: a thread wakes itself then waits; ns per pair", e12.SelfwakeImpls},
	{"herd", "E6: notify_all with N waiters; requeue onto the mutex vs the thundering herd", herd.Impls},
	{"timeout", "how late each park-until returns after its deadline, with timer slack", timeout.Impls},
	{"lock", "a contended lock: throughput per thread, fairness, CPU, every lock side by side (parking_lot's mutex benchmark)", lock.Impls},
	{"lock --rwlock", "parking_lot's rwlock benchmark: readers and writers on one rwlock, throughput and fairness per class", lock.RwImpls},
	{"stacks", "where each mechanism's blocked thread sleeps (wchan, syscall, kernel stack)", stacks.Impls},
	{"run", "the suite: latency, selfwake, herd, lock and a small rwlock run with defaults (--quick: under a minute)", nil},
}
