package wake

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/results"
)

// FormatPerf is `parkbench wake --format=perf`: each configuration of a
// wake experiment as perf bench futex prints it (perf 6.1's lines:
// tools/perf/bench/futex-wake.c, futex-wake-parallel.c, futex-requeue.c,
// futex-hash.c), so that the two outputs diff line by line. The command
// offers it beside report's formats (internal/cli/experiments.go).
const FormatPerf = "perf"

// ErrNoWake is RenderPerf's error for a file without a wake experiment.
var ErrNoWake = errors.New("the perf format renders parkbench wake results only (perf bench futex's benches)")

// RenderPerf writes every wake configuration of f in perf bench futex's
// words: the "# Running" and "Run summary" header, one line per run, the
// summary line with perf's (+-), the standard error of the mean as a
// percentage of the mean. A "# parkbench:" comment line names the
// implementation and the configuration; the PID is parkbench's, and no
// futex address is recorded (0x0 stands in for perf's %p). Times are
// parkbench's CLOCK_MONOTONIC nanoseconds printed as perf's %.4f ms (perf
// keeps whole microseconds of gettimeofday).
func RenderPerf(w io.Writer, f *results.File) error {
	found := false
	for _, e := range f.Experiments {
		if e.Name != "wake" {
			continue
		}
		found = true
		for _, c := range e.Configs {
			if err := perfConfig(w, c); err != nil {
				return err
			}
		}
	}
	if !found {
		return ErrNoWake
	}
	return nil
}

func ms(ns float64) float64 { return ns / 1e6 }

func perfConfig(w io.Writer, c *results.Config) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	bench := c.Params["bench"]
	n := c.IntParam("n")
	pid := c.Params["pid"]
	scope := "private"
	if strings.HasSuffix(c.Impl, "-shared") {
		scope = "shared"
	}
	perCall := c.Params["per_call"]
	if perCall == "all" {
		perCall = c.Params["n"]
	}
	switch bench {
	case BenchWake, BenchParallel, BenchRequeue, BenchHash:
		p("# Running 'futex/%s' benchmark:\n", bench)
		p("# parkbench: impl=%s config=%s\n", c.Impl, c.Key)
	default:
		p("# parkbench: impl=%s config=%s: %s\n\n", c.Impl, c.Key, perfOther(c))
		return nil
	}
	woken := func(r results.Round) int {
		if v, ok := r.Metrics[MWoken]; ok {
			return int(v)
		}
		return n
	}
	// moved prints what futex-wake.c and futex-requeue.c print alike, with
	// their verb: a line per run, then the mean and its error.
	moved := func(verb string) {
		for i, r := range c.Rounds {
			p("[Run %d]: %s %d of %d threads in %.4f ms\n", i+1, verb, woken(r), n, ms(r.Metrics[mWakerNs]))
		}
		p("%s %d of %d threads in %.4f ms (+-%.2f%%)\n", verb, summaryWoken(c, n), n, ms(c.Summary[MWakerMean]), c.Summary[MWakerSEM])
	}
	switch bench {
	case BenchWake:
		p("Run summary [PID %s]: blocking on %d threads (at [%s] futex 0x0), waking up %s at a time.\n\n", pid, n, scope, perCall)
		moved("Wokeup")
	case BenchParallel:
		m := c.IntParam("wakers")
		p("Run summary [PID %s]: blocking on %d threads (at [%s] futex 0x0), %d threads waking up %s at a time.\n\n", pid, n, scope, m, c.Params["per_call"])
		per := n / max(m, 1)
		for i, r := range c.Rounds {
			p("[Run %d]: Avg per-thread latency (waking %d/%d threads) in %.4f ms (+-%.2f%%)\n", i+1, per, n, ms(r.Metrics[mWakerNs]), r.Metrics[MWakerSEM])
		}
		p("Avg per-thread latency (waking %d/%d threads) in %.4f ms (+-%.2f%%)\n", per, n, ms(c.Summary[MWakerMean]), c.Summary[MWakerSEM])
	case BenchRequeue:
		p("Run summary [PID %s]: Requeuing %d threads (from [%s] 0x0 to 0x0), %s at a time.\n\n", pid, n, scope, perCall)
		moved("Requeued")
	case BenchHash:
		futexes := c.Params["futexes"]
		asked := 0
		if d, err := time.ParseDuration(c.Params["hash_time"]); err == nil {
			asked = int(d.Seconds())
		}
		for i, r := range c.Rounds {
			if i > 0 {
				p("# Running 'futex/%s' benchmark:\n# parkbench: impl=%s config=%s round %d\n", bench, c.Impl, c.Key, i+1)
			}
			secs := int(r.Metrics[mElapsed] / 1e9)
			p("Run summary [PID %s]: %d threads, each operating on %s [%s] futexes for %d secs.\n\n", pid, n, futexes, scope, asked)
			for t := 0; t < n; t++ {
				p("[thread %2d] futexes: 0x0 ... 0x0 [ %d ops/sec ]\n", t, int64(r.Metrics[threadOpsKey(t)]))
			}
			p("\nAveraged %d operations/sec (+- %.2f%%), total secs = %d\n", int64(r.Metrics[MOpsPerSec]), r.Metrics[MOpsSEM], secs)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

func summaryWoken(c *results.Config, n int) int {
	if v, ok := c.Summary[MWoken]; ok {
		return int(v)
	}
	return n
}

// perfOther is the one line of a configuration perf has no bench for (the
// condvar producer/consumer).
func perfOther(c *results.Config) string {
	return fmt.Sprintf("%.0f items/s, %.1f ns/item, %.3f switches/item, %.3f waits/item",
		c.Summary[MItemsPerSec], c.Summary[MNsPerItem], c.Summary[MCswPerItem], c.Summary[MWaitPerItem])
}
