package experiments

import (
	"strings"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/inversion"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/loaded"
	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/experiments/selfwake"
	"github.com/parkbench/parkbench/internal/experiments/spin"
	"github.com/parkbench/parkbench/internal/experiments/stacks"
	"github.com/parkbench/parkbench/internal/experiments/timeout"
	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/report/section"
	"github.com/parkbench/parkbench/internal/results"
)

// Entry is one experiment for `parkbench list`: its command, a one-line
// summary, and every implementation its Flag accepts.
type Entry struct {
	Name, Summary string
	// Impls is nil for the suite, which takes no --impl.
	Impls func() []driver.ImplInfo
	// Flag is the flag that names implementations ("" means --impl).
	Flag string
	// Metrics is the experiment's metric description (what its results
	// carry): the help of plot and compare is generated from it.
	Metrics []results.MetricSpec
	// Sections are its own parts of its pages beyond the table of its
	// configurations (text, markdown, HTML, compare's component lines):
	// report and compare find them by the experiment's name.
	Sections []section.Section
}

// Every entry's sections are report's and compare's.
func init() {
	for _, e := range Registry {
		section.Register(e.Name, e.Sections...)
	}
}

// Registry lists the experiments in display order, the suite last.
var Registry = []Entry{
	{Name: "latency", Summary: "E12: ping-pong one-way wake latency per parker (median, p99 from HDR histograms, 3 rounds)", Impls: latency.Impls, Metrics: latency.LatencyMetrics, Sections: []section.Section{anatomy.LatencySection}},
	{Name: "selfwake", Summary: "E12 reverse check: a thread wakes itself then waits; ns per pair", Impls: selfwake.Impls, Metrics: selfwake.Metrics},
	{Name: "herd", Summary: "E6: notify_all with N waiters; requeue onto the mutex vs the thundering herd", Impls: herd.Impls, Metrics: herd.Metrics, Sections: []section.Section{anatomy.HerdSection}},
	{Name: "timeout", Summary: "how late each park-until returns after its deadline, with timer slack", Impls: timeout.Impls, Metrics: timeout.Metrics},
	{Name: "lock", Summary: "a contended lock: throughput per thread, fairness, CPU, every lock side by side (parking_lot's mutex benchmark)", Impls: lock.Impls, Metrics: lock.Metrics},
	{Name: "rwlock", Summary: "parking_lot's rwlock benchmark: readers and writers on one rwlock, throughput and fairness per class", Impls: lock.RwImpls, Metrics: lock.RwMetrics},
	{Name: "wake", Summary: "the waker's side, perf bench futex's method: wake, wake-parallel, requeue, hash; parking_lot #448's condvar producer/consumer", Impls: wake.Impls, Metrics: wake.Metrics},
	{Name: "loaded", Summary: "wake latency under load, schbench's method: open-loop requests, wakeup and request latency p50..p99.9, the collapse table", Impls: loaded.Impls, Metrics: loaded.Metrics},
	{Name: "spin", Summary: "how long to spin before parking on this machine: wake latency against the waiter's CPU per wait, per spin budget and gap, the libraries' budgets beside the park + wake cost; not in run", Impls: spin.Impls, Metrics: spin.Metrics},
	{Name: "stacks", Summary: "where each mechanism's blocked thread sleeps (wchan, syscall, kernel stack)", Impls: stacks.Impls, Flag: "--mech"},
	{Name: "inversion", Summary: "priority inversion under SCHED_FIFO (pi_stress's scenario): high's wait for a lock low holds while medium spins, with and without priority inheritance; Linux, root; not in run", Impls: inversion.Impls, Metrics: inversion.Metrics},
	{Name: "run", Summary: "the suite: " + strings.Join(SuiteNames(), ", ") + ", one after the other (--quick: under a minute)"},
}
