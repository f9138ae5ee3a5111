package e12

import (
	"context"
	"errors"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// TestRunSelfwake runs every implementation for a few samples and checks
// the structure: a syscall reference row, ns per pair present, histograms
// decode, the claim is there.
func TestRunSelfwake(t *testing.T) {
	defer func(old func([2]int) *results.Probe) { measureProbe = old }(measureProbe)
	measureProbe = cheapProbe
	o := SelfwakeOptions{Impls: []string{ImplAll}, Pairs: 10, Samples: 20, Rounds: 2}
	exp, err := RunSelfwake(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Configs) < 3 || exp.Configs[0].Impl != ImplSyscall {
		t.Fatalf("%d configs, first %q", len(exp.Configs), exp.Configs[0].Impl)
	}
	for _, c := range exp.Configs {
		if len(c.Rounds) != 2 {
			t.Fatalf("%s: %d rounds", c.Key, len(c.Rounds))
		}
		for _, m := range []string{results.MNsPerPair, results.MMin, results.MP99, MCtxSwPerPair, MSyscallNs} {
			if _, ok := c.Summary[m]; !ok {
				t.Errorf("%s: %s missing", c.Key, m)
			}
		}
		h, err := hdrhistogram.Decode([]byte(c.Rounds[0].Histogram))
		if err != nil || h.TotalCount() != 20 {
			t.Errorf("%s: histogram %v, %v", c.Key, err, h)
		}
	}
	if len(exp.Claims) != 1 || exp.Claims[0].ID != ClaimE12SelfAtOnc {
		t.Errorf("claims %+v", exp.Claims)
	}
	// The cross claim evaluates from these and a latency run.
	l, err := RunLatency(context.Background(), tinyLatency(sleeper(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := CrossClaims(l, exp); c[0].Verdict == results.NotEvaluated {
		t.Errorf("cross claim not evaluated: %s", c[0].Evidence)
	}
}

func TestSelfwakeBadOptions(t *testing.T) {
	for name, o := range map[string]SelfwakeOptions{
		"zero pairs":   {Impls: []string{"futex"}, Pairs: 0, Samples: 1, Rounds: 1},
		"zero samples": {Impls: []string{"futex"}, Pairs: 1, Samples: 0, Rounds: 1},
		"unknown":      {Impls: []string{"nope"}, Pairs: 1, Samples: 1, Rounds: 1},
	} {
		var oe *driver.OptionError
		if _, err := RunSelfwake(context.Background(), o, nil); !errors.As(err, &oe) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
