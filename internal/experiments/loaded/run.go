package loaded

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
)

// Run runs parkbench loaded: schbench's method with open-loop arrivals.
// See doc.go.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, Plan, progress)
}

// Plan validates o (an *driver.OptionError for bad input) and returns the
// run it describes, measuring nothing yet.
func Plan(o Options) (driver.Plan, error) { return driver.Prepared(plan(o)) }

func (p *loadedPlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o := p.o
	nsPerStep := calibrate()
	steps := max(1, int(math.Round(float64(o.Work)/nsPerStep)))
	exp := &results.Experiment{Name: "loaded", Metrics: Metrics, Options: o.asMap(p.mechs), Warnings: p.warnings, Notes: p.notes}
	exp.Options["capacity_rps"] = strconv.FormatFloat(o.capacity(), 'f', 0, 64)
	exp.Options["work_step_ns"] = strconv.FormatFloat(nsPerStep, 'f', 3, 64)
	exp.Options["work_steps"] = strconv.Itoa(steps)
	exp.Notes = append(exp.Notes,
		fmt.Sprintf("method: schbench (masoncl/schbench): %d message thread(s), each with its workers; a request is %v of calibrated CPU work (%d multiply-add steps of %.2f ns)%s; load = the offered rate in %% of the nominal capacity %.0f requests/s (NumCPU / work)",
			o.MessageThreads, o.Work, steps, nsPerStep, sleepNote(o.Sleep), o.capacity()),
		fmt.Sprintf("arrivals: %s; wakeup latency = the worker's clock after its wait - the message thread's right before the wake call; request latency = completion - the request's intended start (the open loop: no coordinated omission); %v warm-up, %v measured per configuration", arrivalNote(o.Arrival), o.Warmup, o.Duration))
	if b := lot.CurrentBackend(); b.Name != "" {
		exp.Notes = append(exp.Notes, "lot parks through the "+b.Name+" thread parker")
	}
	var tally runenv.Tally
	done := 0
	total := len(p.cfgs) * o.Rounds
	for start := 0; start < len(p.cfgs); {
		if driver.Interrupted(ctx) { // before the group's probe
			return nil, ctx.Err()
		}
		end := start
		for end < len(p.cfgs) && p.cfgs[end].group == p.cfgs[start].group {
			end++
		}
		group := p.cfgs[start:end]
		cfgs := make([]*results.Config, len(group))
		vals := make([][]map[string]float64, len(group))
		hists := make([]*hdrhistogram.Histogram, len(group))
		for k, c := range group {
			cfgs[k] = newConfig(c, o)
		}
		pr := probe.Measure(probe.DefaultCPUs())
		fg := probe.StartForeign()
		for r := 0; r < o.Rounds; r++ {
			for k, c := range group {
				if driver.Interrupted(ctx) {
					fg.Stop()
					return nil, ctx.Err()
				}
				progress.Report(done, total, c.key())
				threads := o.MessageThreads * (c.workers + 1)
				var env *runenv.Env
				if c.mech.goroutines {
					env = runenv.EnterProcs(threads, runtime.NumCPU())
				} else {
					env = runenv.Enter(threads)
				}
				m, h, err := runOnce(ctx, c, o, steps)
				grt := tally.End(env)
				done++
				if err != nil {
					fg.Stop()
					return nil, err
				}
				cfgs[k].Params["gomaxprocs"] = strconv.Itoa(grt.GOMAXPROCS)
				cfgs[k].Rounds = append(cfgs[k].Rounds, results.Round{Metrics: m})
				vals[k] = append(vals[k], m)
				if hists[k] == nil {
					hists[k] = h
				}
			}
		}
		foreign := fg.Stop()
		for k, cfg := range cfgs {
			cfg.Probe = pr
			driver.RecordForeignLoad(cfg, foreign)
			cfg.Summary = driver.MedianOfRounds(vals[k])
			if enc, err := results.EncodeHist(hists[k]); err == nil && hists[k].TotalCount() > 0 {
				cfg.Rounds[0].Histogram = enc
			}
			if _, ok := cfg.Summary[MWakeP99]; !ok {
				cfg.Warnings = append(cfg.Warnings, "no worker slept during the window: each always had a request queued (saturated); no wakeup latency")
			}
			if d := cfg.Summary[MDropped]; d > 0 {
				cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%.0f requests dropped: a worker's queue (%d) was full: past saturation", d, ringSize))
			}
			exp.Configs = append(exp.Configs, cfg)
		}
		start = end
	}
	progress.Report(total, total, "")
	exp.Runtime = tally.Runtime("syscall")
	exp.Claims = Claims(exp.Configs)
	exp.Notes = append(exp.Notes, CollapseNotes(exp.Configs)...)
	return exp, nil
}
