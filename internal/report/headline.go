package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/report/section"
	"github.com/parkbench/parkbench/internal/results"
)

// sentences are the headline sentence of each experiment of the suite: the
// study's question, the answer with its figure, and where the time goes
// when the anatomy ran. An experiment without one (or whose sentence
// finds none of its rows) gets the spread of its main figure (headline).
var sentences = map[string]func(e *results.Experiment) string{
	"latency":  latencySentence,
	"selfwake": selfwakeSentence,
	"herd":     herdSentence,
	"lock":     lockSentence,
	"rwlock":   rwlockSentence,
	"wake":     wakeSentence,
	"loaded":   loadedSentence,
}

// fmtTime is ns as the sentence says it: "10.8 µs", "85 ns", "1.20 ms".
func fmtTime(ns float64) string {
	switch {
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'f', 2, 64) + " ms"
	case ns >= 10e3:
		return strconv.FormatFloat(ns/1e3, 'f', 1, 64) + " µs"
	case ns >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'f', 2, 64) + " µs"
	}
	return strconv.FormatFloat(ns, 'f', 0, 64) + " ns"
}

// pick is the configuration of impl in e whose key passes ok, nil for none.
func pick(e *results.Experiment, impl string, ok func(*results.Config) bool) *results.Config {
	for _, c := range e.Configs {
		if c.Impl == impl && (ok == nil || ok(c)) {
			return c
		}
	}
	return nil
}

// largestParam is the largest value of parameter k over e's configurations.
func largestParam(e *results.Experiment, k string) int {
	n := 0
	for _, c := range e.Configs {
		n = max(n, c.IntParam(k))
	}
	return n
}

func latencySentence(e *results.Experiment) string {
	key := e.MainKey()
	m, _ := e.Spec(key)
	place := ""
	for _, c := range e.Configs {
		if c.Placement == "cross-core" {
			place = c.Placement
		}
	}
	if place == "" && len(e.Configs) > 0 {
		place = e.Configs[0].Placement
	}
	at := func(c *results.Config) bool {
		return c.Placement == place && c.Params["gap"] == "0s" && c.Params["participants"] != "goroutines"
	}
	floor := pick(e, m.Floor, at)
	var lo, hi *results.Config
	for _, c := range e.Configs {
		if !at(c) || c.Params["sleeps"] != "true" || c.Kind == "c-reference" || c.Kind == "goroutine" {
			continue
		}
		if _, ok := c.Summary[key]; !ok {
			continue
		}
		if lo == nil || c.Summary[key] < lo.Summary[key] {
			lo = c
		}
		if hi == nil || c.Summary[key] > hi.Summary[key] {
			hi = c
		}
	}
	ref := floor
	if ref == nil {
		ref = lo
	}
	if ref == nil {
		return ""
	}
	where := "a wake across CPUs"
	if place != "cross-core" {
		where = "a wake (" + place + ")"
	}
	s := fmt.Sprintf("%s costs about %s here (%s)", where, fmtTime(ref.Summary[key]), ref.Impl)
	if best, what := largestPart(e, ref); what != "" {
		s += fmt.Sprintf(", %s of it %s", fmtTime(best), what)
	}
	if lo != nil && hi != nil && lo != hi {
		s += fmt.Sprintf("; the Go parkers %s (%s) .. %s (%s)", fmtTime(lo.Summary[key]), lo.Impl, fmtTime(hi.Summary[key]), hi.Impl)
	}
	if spin := pick(e, "c-spin", at); spin != nil {
		s += fmt.Sprintf("; busy waiting %s", fmtTime(spin.Summary[key]))
	}
	if ns := ref.Summary["no_sleep_fraction"]; ns >= 0.1 {
		s += fmt.Sprintf("; %.0f%% of %s's waits did not sleep", 100*ns, ref.Impl)
	}
	return s
}

// largestPart is the part of c's figure with the largest value among
// those the sentence names (its experiment's parts, internal/report/section:
// latency's anatomy components, when the anatomy ran) and what it is.
func largestPart(e *results.Experiment, c *results.Config) (float64, string) {
	best, what := 0.0, ""
	for _, p := range section.PartsOf(e.Name) {
		if v, ok := c.Summary[p.Metric]; ok && v > best && p.What != "" {
			best, what = v, p.What
		}
	}
	return best, what
}

func selfwakeSentence(e *results.Experiment) string {
	var parts []string
	for _, impl := range []string{"lot", "std", "crossbeam"} {
		if c := pick(e, impl, nil); c != nil {
			parts = append(parts, fmt.Sprintf("%s %s", impl, fmtTime(c.Summary[results.MNsPerPair])))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	s := "waking itself, then waiting, costs " + strings.Join(parts, ", ") + " per pair"
	if sc := pick(e, "syscall", nil); sc != nil {
		s += fmt.Sprintf(" (a syscall %s)", fmtTime(sc.Summary[results.MNsPerPair]))
	}
	return s + ": the wake's time is sleeping and waking"
}

func herdSentence(e *results.Experiment) string {
	n := largestParam(e, "n")
	at := func(c *results.Config) bool { return c.IntParam("n") == n && c.Params["notify"] == "notify-all" }
	lot, bc := pick(e, "lot", at), pick(e, "futex-broadcast", at)
	if lot == nil || bc == nil {
		return ""
	}
	return fmt.Sprintf("notify_all with %d waiters: the first holds the lock after %s with lot's requeue, %s with a broadcast "+
		"(futex-broadcast); the last is released after %s and %s",
		n, fmtTime(lot.Summary[results.MFirstNs]), fmtTime(bc.Summary[results.MFirstNs]), fmtTime(lot.Summary[results.MTotalNs]), fmtTime(bc.Summary[results.MTotalNs]))
}

func lockSentence(e *results.Experiment) string {
	t := largestParam(e, "threads")
	at := func(c *results.Config) bool {
		return c.IntParam("threads") == t && c.Params["participants"] != "goroutines" && c.Params["work_in"] == "0s"
	}
	lot, c := pick(e, "lot", at), pick(e, "c-pthread", at)
	if lot == nil || c == nil || c.Summary["total_mops"] <= 0 {
		return ""
	}
	return fmt.Sprintf("a mutex contended by %d threads: lot %.1f M acquisitions/s, C's pthread mutex %.1f (%.2fx)",
		t, lot.Summary["total_mops"], c.Summary["total_mops"], lot.Summary["total_mops"]/c.Summary["total_mops"])
}

func rwlockSentence(e *results.Experiment) string {
	lot, c := pick(e, "lot", nil), pick(e, "c-pthread", nil)
	if lot == nil || c == nil {
		return ""
	}
	return fmt.Sprintf("an rwlock with %s readers and %s writer: lot reads %.1f M/s and writes %.2f M/s, C's pthread rwlock %.1f and %.2f",
		lot.Params["readers"], lot.Params["writers"], lot.Summary["read_mops"], lot.Summary["write_mops"], c.Summary["read_mops"], c.Summary["write_mops"])
}

func wakeSentence(e *results.Experiment) string {
	at := func(c *results.Config) bool { return c.Params["bench"] == "wake" && c.Params["per_call"] == "1" }
	lot, fx := pick(e, "lot", at), pick(e, "futex", at)
	if lot == nil || fx == nil {
		return ""
	}
	return fmt.Sprintf("the waker's side, waking %s waiters one per call: lot %s per call, the bare futex %s",
		lot.Params["n"], fmtTime(lot.Summary["waker_mean_ns"]), fmtTime(fx.Summary["waker_mean_ns"]))
}

func loadedSentence(e *results.Experiment) string {
	lo := math.MaxInt
	for _, c := range e.Configs {
		if l := c.IntParam("load"); l > 0 && c.Params["sweep"] == "rate" {
			lo = min(lo, l)
		}
	}
	at := func(c *results.Config) bool { return c.IntParam("load") == lo && c.Params["sweep"] == "rate" }
	var parts []string
	for _, impl := range []string{"futex", "lot", "spin"} {
		if c := pick(e, impl, at); c != nil {
			if v, ok := c.Summary["wakeup_p99_ns"]; ok {
				parts = append(parts, impl+" "+fmtTime(v))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("a worker's wakeup under %d%% load, p99: %s", lo, strings.Join(parts, ", "))
}
