package latency

import (
	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// LatencyMetrics describes latency's figures (results.MetricSpec), in table
// order. The wake (MWakeMedian) is the main figure, the table's median;
// the median of all waits is the A/B gate's headline: it judges it on
// pinned cross-core rows as a ratio to the C floor of the same run
// (c-futex here, c-ulock on darwin; busy-waiting rows against c-spin), on
// the waits that slept where both sides record them. p99 and the rest
// are shown, and the p99 judged by compare, but a p99 from a short trial
// is too noisy to gate on.
var LatencyMetrics = func() []results.MetricSpec {
	sleeping, busy := cref.Floors()[0].Name, cref.Floors()[1].Name
	floors := map[string]string{parkers.NameSpin: busy, parkers.NameGeneric: busy, ImplGoSpin: busy, ImplSpinOneLine: busy, busy: ""}
	us := func(key, header, bench string) results.MetricSpec {
		return results.MetricSpec{Key: key, Header: header, Unit: results.UnitMicros, Better: results.Lower, Benchstat: bench}
	}
	diag := func(key, header, bench string) results.MetricSpec {
		return results.MetricSpec{Key: key, Header: header, Better: results.Lower, Diagnostic: true, Benchstat: bench}
	}
	// share is a fraction of the traced round's wakes, shown with --wide;
	// none is better or worse in itself (what it answers is which path
	// a wake took).
	share := func(key, header string) results.MetricSpec {
		return results.MetricSpec{Key: key, Header: header, Better: results.Higher, Diagnostic: true}
	}
	usDiag := func(key, header string) results.MetricSpec {
		s := us(key, header, "")
		s.Diagnostic = true
		return s
	}
	// The table's median is the wake (MWakeMedian: the waits that slept,
	// for a mechanism that sleeps), the share that did not sleep beside
	// it; the figures over every wait are the wide view's, under their
	// own keys ("median all", "min").
	wake := us(MWakeMedian, "median", "wake-ns/op")
	wake.Main, wake.Judged = true, true
	wake.Floor, wake.FloorByImpl = sleeping, floors
	notSlept := results.MetricSpec{Key: MNoSleepFraction, Header: "not slept", Better: results.Lower}
	// The overall median is the gate's headline (judged on the slept
	// waits where both sides record them: Slept), and compare's figure
	// for files written before the wake had a key of its own.
	median := usDiag(results.MMedian, "median all")
	median.Benchstat = "ns/op"
	median.Judged, median.Headline = true, true
	median.Floor, median.FloorByImpl = sleeping, floors
	median.Slept = MMedianSlept
	median.Plot = &results.PlotSpec{Kind: results.PlotPercentile, Title: "wake latency by percentile", Axis: "one-way wake latency (µs)"}
	// The overall min is a wait that did not sleep wherever one did not
	// (a busy-wait's figure); the slept waits' min is the fastest
	// sleeping wake.
	minAll := usDiag(results.MMin, "min")
	minAll.Benchstat = "min-ns/op"
	minSlept := us(MMinSlept, "min slept", "")
	p99 := us(results.MP99, "p99", "p99-ns/op")
	p99.Judged, p99.Floor, p99.FloorByImpl = true, sleeping, floors
	return []results.MetricSpec{
		minSlept, wake, notSlept, p99,
		us(results.MP999, "p99.9", "p99.9-ns/op"), us(results.MMax, "max", "max-ns/op"),
		minAll, median,
		diag(results.MNoSleep, "no-sleep", "no-sleep-waits"),
		diag(results.MCtxSwSelf, "csw/rt self", "ctxsw-self/op"),
		diag(results.MCtxSwThread, "csw/rt thr", "ctxsw-thread/op"),
		diag(MCtxSwOther, "csw/rt other", ""),
		diag(schedacct.MCtxSwSysmon, "csw/rt sysmon", ""),
		diag(schedacct.MSchedSteals, "steals/rt", ""),
		// The goroutine-level evidence (goroutine_claims.go): the runtime's own
		// figures of every round, and the traced round's wake shares.
		share(schedacct.MWakeSameP, "wake same P"), share(schedacct.MWakeOtherP, "wake other P"), share(schedacct.MWakeThreadWoken, "wake thr woken"),
		diag(schedacct.MWakesPerRT, "wakes/rt", ""),
		usDiag(schedacct.MGoSchedLatMedian, "runq wait"), usDiag(schedacct.MGoSchedLatP99, "runq wait p99"),
		diag(schedacct.MGoThreads, "go threads", ""),
	}
}()
