package latency

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// Claims the anatomy decides (--anatomy only).
const (
	ClaimAnatomyIdle = "E12-anatomy-idle-exit"
	ClaimAnatomyGap  = "E12-anatomy-gap"
)

const (
	stmtAnatomyIdle = "a cross-core sleeping wake's largest part is its CPU leaving idle (idle_exit: the IPI and, in a VM guest, the host running a halted vCPU again), not the mechanism"
	stmtAnatomyGap  = "under --gap, idle_exit's share of a cross-core wake grows with the gap (a CPU idle longer sits in a deeper state)"
)

// minIdleWakes: a configuration whose CPU was idle at fewer of its traced
// wakes says nothing about leaving idle.
const minIdleWakes = 20

// AnatomyClaims evaluates the anatomy's claims on lat (a run with
// --anatomy), from the summary figures of its cross-core configurations.
func AnatomyClaims(lat *results.Experiment) []results.Claim {
	return []results.Claim{claimAnatomyIdle(lat), claimAnatomyGap(lat)}
}

func crossWithAnatomy(lat *results.Experiment) []*results.Config {
	var out []*results.Config
	for _, c := range lat.Configs {
		if c.Placement == driver.CrossCore && c.Params["sleeps"] == "true" {
			if _, ok := c.Summary[anatomy.MSumMedian]; ok {
				out = append(out, c)
			}
		}
	}
	return out
}

func componentMedians(c *results.Config) []float64 {
	var v []float64
	for _, k := range anatomy.Components {
		v = append(v, c.Summary[anatomy.MedianKey(k)])
	}
	return v
}

func us(ns float64) string { return fmt.Sprintf("%.1f µs", ns/1000) }

func claimAnatomyIdle(lat *results.Experiment) results.Claim {
	cl := results.Claim{ID: ClaimAnatomyIdle, Statement: stmtAnatomyIdle, Verdict: results.NotEvaluated}
	var ev, failing []string
	busy := 0
	judged := 0
	for _, c := range crossWithAnatomy(lat) {
		if c.Params["gap"] != "0s" {
			continue
		}
		s := c.Summary
		if s[anatomy.MIdleWakes] < minIdleWakes {
			busy += int(s[anatomy.MBusyWakes])
			continue
		}
		judged++
		m := componentMedians(c)
		largest := slices.Index(m, slices.Max(m))
		ev = append(ev, fmt.Sprintf("%s: idle_exit %s of %s summed (median share %.0f%%; %d idle, %d busy wakes)",
			c.Key, us(m[1]), us(s[anatomy.MSumMedian]), 100*s[anatomy.MIdleShare], int(s[anatomy.MIdleWakes]), int(s[anatomy.MBusyWakes])))
		if largest != 1 {
			failing = append(failing, fmt.Sprintf("%s's largest part is %s (%s; idle_exit %s)", c.Key, anatomy.Components[largest], us(m[largest]), us(m[1])))
		}
	}
	if judged == 0 {
		cl.Evidence = fmt.Sprintf("no cross-core configuration at gap 0 found its target CPU idle at %d or more traced wakes (%d wakes found it busy: a loaded machine)", minIdleWakes, busy)
		cl.Why = cl.Evidence
		return cl
	}
	return conclude(cl, "rule: at gap 0, idle_exit's median is the largest component median; ", ev, failing)
}

func claimAnatomyGap(lat *results.Experiment) results.Claim {
	cl := results.Claim{ID: ClaimAnatomyGap, Statement: stmtAnatomyGap, Verdict: results.NotEvaluated}
	type pt struct {
		gap   time.Duration
		share float64
	}
	byImpl := map[string][]pt{}
	var impls []string
	for _, c := range crossWithAnatomy(lat) {
		g, err := time.ParseDuration(c.Params["gap"])
		if err != nil || c.Summary[anatomy.MIdleWakes] < minIdleWakes && g > 0 {
			continue
		}
		if _, ok := byImpl[c.Impl]; !ok {
			impls = append(impls, c.Impl)
		}
		byImpl[c.Impl] = append(byImpl[c.Impl], pt{g, c.Summary[anatomy.MIdleShare]})
	}
	var ev, failing []string
	for _, im := range impls {
		ps := byImpl[im]
		if len(ps) < 2 {
			continue
		}
		slices.SortFunc(ps, func(a, b pt) int { return int(a.gap - b.gap) })
		var parts []string
		for _, p := range ps {
			parts = append(parts, fmt.Sprintf("%v %.0f%%", p.gap, 100*p.share))
		}
		ev = append(ev, im+": "+strings.Join(parts, ", "))
		if ps[len(ps)-1].share <= ps[0].share {
			failing = append(failing, fmt.Sprintf("%s: %.0f%% at gap %v, %.0f%% at %v", im, 100*ps[len(ps)-1].share, ps[len(ps)-1].gap, 100*ps[0].share, ps[0].gap))
		}
	}
	if len(ev) == 0 {
		cl.Evidence = "needs --gap with two or more values and the target CPU idle at the wakes (e.g. --gap=0,50us,1ms --placement=cross-core)"
		return cl
	}
	return conclude(cl, "rule: per implementation, the median idle_exit share at the largest gap exceeds the smallest gap's; ", ev, failing)
}

// conclude ends a claim that judged something: its evidence is rule and
// then ev; it holds unless a part failed, and then the failing parts are
// why.
func conclude(cl results.Claim, rule string, ev, failing []string) results.Claim {
	cl.Evidence = rule + strings.Join(ev, "; ")
	if len(failing) > 0 {
		cl.Verdict, cl.Why = results.DoesNotHold, strings.Join(failing, "; ")
		return cl
	}
	cl.Verdict = results.Holds
	return cl
}
