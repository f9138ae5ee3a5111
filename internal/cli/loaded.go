package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/loaded"
)

func init() { register(newLoadedCmd) }

func newLoadedCmd() *cobra.Command {
	type O = loaded.Options
	return experimentCmd[O]{
		use:   "loaded",
		short: "wake latency under load, schbench's method: open-loop requests, wakeup and request latency percentiles, the collapse table",
		long: `loaded is schbench's method: message threads each hand requests to their
workers (--workers, schbench -t; default the CPUs) and wake them through the
mechanism under test; a worker does --work of calibrated CPU work and takes
the next. Requests arrive open-loop at --loads percent of the nominal
capacity (NumCPU / work) with wrk2's intended start times (--arrival
uniform; burst is schbench -R's), or closed-loop (--closed, schbench's
default). Per configuration, after --warmup: wakeup latency (the message
thread's clock right before the wake call -> the worker running) and
request latency (intended start -> done) at p50, p90, p99, p99.9, requests
per second. --oversubscribe runs 1x, 2x, 4x, 8x the workers at
--oversub-load. The collapse table gives each mechanism's first load and
thread multiple at which its p99 wakeup latency exceeds 10x its value at
the lowest load. Mechanisms: parkbench list. Method and where it differs
from schbench: docs/experiments.md.

Configuration keys are impl/load=P/oversub=K or impl/closed/oversub=K.`,
		example: `  parkbench loaded --quick
  parkbench loaded --impl=futex,lot,spin,spin-park --loads=10,50,90,100 --oversubscribe=1,2,4,8
  parkbench loaded --arrival=burst --duration=5s
  parkbench loaded --work=1ms --sleep=100us --workers=4`,
		def:   loaded.DefaultOptions,
		quick: loaded.QuickOptions,
		plan:  loaded.Plan,
		flags: flagTable[O]{
			namesFlag("impl", "Impls", "mechanisms: a name, a comma list, or all available ("+strings.Join(loaded.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
			intFlag("message-threads", "MessageThreads", "message threads, each with its workers (schbench -m)", func(o *O) *int { return &o.MessageThreads }),
			intFlag("workers", "Workers", "workers per message thread at 1x (schbench -t); 0 = the CPUs / message threads", func(o *O) *int { return &o.Workers }),
			durationFlag("work", "Work", "calibrated CPU work per request (schbench -F/-n's matrix math)", func(o *O) *time.Duration { return &o.Work }),
			durationFlag("sleep", "Sleep", "a nanosleep inside each request before its work (schbench -s)", func(o *O) *time.Duration { return &o.Sleep }),
			intsFlag("loads", "Loads", fmt.Sprintf("open-loop rates in percent of the nominal capacity, rising, a comma list, each 1..%d; the first is the unloaded reference", loaded.MaxLoad), func(o *O) *[]int { return &o.Loads }),
			boolFlag("closed", "Closed", "also run the closed loop (schbench's default mode)", func(o *O) *bool { return &o.Closed }),
			intsFlag("oversubscribe", "Multiples", "oversubscription sweep: multiples of the 1x workers, a comma list", func(o *O) *[]int { return &o.Multiples }),
			intFlag("oversub-load", "OversubLoad", "the oversubscription sweep's rate, in percent of the nominal capacity", func(o *O) *int { return &o.OversubLoad }),
			stringFlag("arrival", "Arrival", "uniform (wrk2's intended start times) or burst (schbench -R: each second's requests at once)", func(o *O) *string { return &o.Arrival }),
			durationFlag("warmup", "Warmup", "warm-up before the measured window (schbench -w)", func(o *O) *time.Duration { return &o.Warmup }),
			durationFlag("duration", "Duration", "measured window per configuration (schbench -r)", func(o *O) *time.Duration { return &o.Duration }),
			intFlag("rounds", "Rounds", "rounds per configuration; the summary is their median", func(o *O) *int { return &o.Rounds }),
		},
	}.command()
}
