package inversion

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/results"
)

func cfg(impl string, pi bool, median, p99, cs, medium float64) *results.Config {
	return &results.Config{Key: impl, Impl: impl, Params: map[string]string{"pi": map[bool]string{true: "true", false: "false"}[pi]},
		Summary: map[string]float64{results.MMedian: median, results.MP99: p99, MCritical: cs, MMediumNs: medium}}
}

// TestClaims: synthetic figures that must pass and must fail.
func TestClaims(t *testing.T) {
	const cs, spin = 100e3, 10e6
	good := []*results.Config{
		cfg("pi-futex", true, 110e3, 250e3, cs, spin),
		cfg("pthread-pi", true, 120e3, 290e3, cs, spin),
		cfg("std-futex", false, 10.1e6, 10.4e6, cs, spin),
		cfg("sync", false, 9.9e6, 12e6, cs, spin),
	}
	for _, tc := range []struct {
		name        string
		cfgs        []*results.Config
		bound, invs string
	}{
		{"inheritance works", good, results.Holds, results.Holds},
		{"a PI lock waited the spin", append(good[1:2:2], cfg("pi-futex", true, 10e6, 10.2e6, cs, spin), good[2]), results.DoesNotHold, results.Holds},
		{"p99 just above 3x", []*results.Config{cfg("pi-futex", true, 110e3, 301e3, cs, spin)}, results.DoesNotHold, results.NotEvaluated},
		{"a lock without PI did not invert", []*results.Config{good[0], cfg("lot", false, 300e3, 400e3, cs, spin)}, results.Holds, results.DoesNotHold},
		{"nothing measured", nil, results.NotEvaluated, results.NotEvaluated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := Claims(tc.cfgs)
			claimtest.Want(t, ClaimPIBounded, claimtest.Find(t, cl, ClaimPIBounded), tc.bound)
			claimtest.Want(t, ClaimNoPIInverts, claimtest.Find(t, cl, ClaimNoPIInverts), tc.invs)
		})
	}
}

// TestValidate: each bound is refused naming its field, before anything
// about the host is looked at.
func TestValidate(t *testing.T) {
	drivertest.WantRefused(t, DefaultOptions, []drivertest.Bad[Options]{
		{Field: "Hold", Edit: func(o *Options) { o.Hold = 0 }},
		{Field: "Hold", Edit: func(o *Options) { o.Hold = MaxHold + 1 }},
		{Field: "Medium", Edit: func(o *Options) { o.Medium = MinMedium - 1 }},
		{Field: "Medium", Edit: func(o *Options) { o.Medium = MaxMedium * 2 }},
		{Field: "Repeats", Edit: func(o *Options) { o.Repeats = 0 }},
		{Field: "Repeats", Edit: func(o *Options) { o.Repeats = MaxRepeats + 1 }},
	})
}

// TestClaimNamesSteal: a PI figure measured while the host stole the CPU
// says so in the evidence, and the steal does not change the verdict.
func TestClaimNamesSteal(t *testing.T) {
	bad := cfg("pi-futex", true, 110e3, 900e3, 100e3, 10e6)
	bad.Summary[MSteal] = 70e6
	c := Claims([]*results.Config{bad})[0]
	if c.Verdict != results.DoesNotHold || !strings.Contains(c.Evidence, "the host stole 70 ms") {
		t.Fatalf("verdict %s, evidence %q: want does-not-hold naming 70 ms of steal", c.Verdict, c.Evidence)
	}
	if c := Claims([]*results.Config{cfg("pi-futex", true, 110e3, 250e3, 100e3, 10e6)})[0]; strings.Contains(c.Evidence, "stole") {
		t.Fatalf("no steal measured, evidence %q names one", c.Evidence)
	}
}
