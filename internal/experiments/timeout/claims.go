package timeout

import (
	"fmt"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// Claim IDs of the timeout experiment.
const (
	ClaimNoEarlyReturn  = "timeout-never-early"
	ClaimSlackDominates = "timeout-slack-dominates"
)

// Thresholds of the slack claim.
const (
	// slackShortDeadline: deadlines up to this count as short, i.e.
	// commensurate with the 50 µs slack. Longer waits also pay the slack,
	// but on a VM their overshoot includes tens of µs of waking an idle
	// vCPU, which no slack setting removes.
	slackShortDeadline = 100 * time.Microsecond
	// slackSmall: a slack at most this counts as "1 ns slack".
	slackSmall = time.Microsecond
	// slackShare: the default slack must account for at least this share
	// of the default-slack median overshoot.
	slackShare = 0.5
	// slackPairsNeeded: share of (impl, deadline) pairs that must show it.
	slackPairsNeeded = 0.75
)

// Claims evaluates the experiment's claims from its configurations
// (pure: it reads only Params and Summary).
func Claims(cfgs []*results.Config) []results.Claim {
	return []results.Claim{claimNoEarly(cfgs), claimSlack(cfgs)}
}

func claimNoEarly(cfgs []*results.Config) results.Claim {
	c := results.Claim{ID: ClaimNoEarlyReturn, Statement: "no park-until returns before its deadline (min overshoot >= 0 in every configuration)"}
	if len(cfgs) == 0 {
		c.Verdict, c.Evidence = results.NotEvaluated, "no configurations measured"
		return c
	}
	var bad []string
	var samples, early float64
	minV, minKey := cfgs[0].Summary[results.MMin], cfgs[0].Key
	for _, cf := range cfgs {
		samples += cf.Summary[results.MSamples]
		e := cf.Summary[MEarly]
		if cf.Summary[results.MMin] < 0 && e == 0 {
			e = 1 // a negative minimum is at least one early return
		}
		early += e
		if e > 0 {
			bad = append(bad, fmt.Sprintf("%s: %.0f early, min %.0f ns", cf.Key, e, cf.Summary[results.MMin]))
		}
		if v := cf.Summary[results.MMin]; v < minV {
			minV, minKey = v, cf.Key
		}
	}
	if len(bad) == 0 {
		c.Verdict = results.Holds
		c.Evidence = fmt.Sprintf("0 early returns in %.0f waits over %d configurations; smallest overshoot %.0f ns (%s)", samples, len(cfgs), minV, minKey)
		return c
	}
	c.Verdict = results.DoesNotHold
	c.Evidence = fmt.Sprintf("%.0f early returns in %.0f waits: %s", early, samples, strings.Join(bad, "; "))
	return c
}

// slackPair is one (impl, deadline) measured under the default and a small
// slack.
type slackPair struct {
	impl               string
	deadline           time.Duration
	defMedian, smallMd float64
	defSlack           float64
}

func claimSlack(cfgs []*results.Config) results.Claim {
	c := results.Claim{ID: ClaimSlackDominates, Statement: fmt.Sprintf(
		"the default 50 µs timer slack dominates short deadlines' overshoot and 1 ns slack reduces it "+
			"(kernel-timed waits, deadlines <= %v: the default-slack median minus the small-slack median is at least %.0f%% of the default-slack median, in at least %.0f%% of pairs)",
		slackShortDeadline, slackShare*100, slackPairsNeeded*100)}
	type k struct {
		impl string
		d    time.Duration
	}
	def := map[k]*results.Config{}
	small := map[k]*results.Config{}
	var order []k
	var defSlackSeen float64 = -1
	for _, cf := range cfgs {
		if cf.Params["kernel_timed"] != "true" {
			continue
		}
		d, err := time.ParseDuration(cf.Params["deadline"])
		if err != nil || d > slackShortDeadline {
			continue
		}
		key := k{cf.Impl, d}
		switch sl := cf.Params["slack"]; {
		case sl == "default":
			if _, ok := def[key]; !ok {
				order = append(order, key)
			}
			def[key] = cf
			defSlackSeen = cf.Summary[MSlack]
		default:
			if v, err := time.ParseDuration(sl); err == nil && v <= slackSmall {
				small[key] = cf
			}
		}
	}
	var pairs []slackPair
	for _, key := range order {
		s, ok := small[key]
		if !ok {
			continue
		}
		d := def[key]
		pairs = append(pairs, slackPair{key.impl, key.d, d.Summary[results.MMedian], s.Summary[results.MMedian], d.Summary[MSlack]})
	}
	if len(pairs) == 0 {
		c.Verdict = results.NotEvaluated
		c.Evidence = fmt.Sprintf("needs kernel-timed waits with deadlines <= %v under both the default slack and a slack <= %v (--timerslack=default,1ns)", slackShortDeadline, slackSmall)
		return c
	}
	if defSlackSeen < float64(10*time.Microsecond) {
		c.Verdict = results.NotEvaluated
		c.Evidence = fmt.Sprintf("this machine's default timer slack is %.0f ns, not the usual 50 µs (a real-time or tuned process?)", defSlackSeen)
		return c
	}
	var ok int
	var fails []string
	var reduction []float64
	for _, p := range pairs {
		gain := p.defMedian - p.smallMd
		if p.defMedian > 0 {
			reduction = append(reduction, gain/p.defMedian)
		}
		if gain > 0 && gain >= slackShare*p.defMedian {
			ok++
		} else {
			fails = append(fails, fmt.Sprintf("%s@%v %.1f->%.1f µs", p.impl, p.deadline, p.defMedian/1e3, p.smallMd/1e3))
		}
	}
	medRed := 0.0 // no pair with a default median above zero: no reduction
	if len(reduction) > 0 {
		medRed = stats.Median(reduction)
	}
	ev := fmt.Sprintf("%d of %d pairs show it (default slack read back %.0f ns); median reduction of the median overshoot %.0f%%", ok, len(pairs), defSlackSeen, medRed*100)
	if len(fails) > 0 {
		if len(fails) > 6 {
			fails = append(fails[:6], fmt.Sprintf("and %d more", len(fails)-6))
		}
		ev += "; not in: " + strings.Join(fails, ", ")
	}
	c.Evidence = ev
	if float64(ok) >= slackPairsNeeded*float64(len(pairs)) {
		c.Verdict = results.Holds
	} else {
		c.Verdict = results.DoesNotHold
	}
	return c
}
