package spin

import (
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
)

func TestOptionsRefused(t *testing.T) {
	drivertest.LinuxOnly(t, "spin runs on Linux only")
	drivertest.WantRefused(t, QuickOptions, []drivertest.Bad[Options]{
		{Field: "Budgets", Want: "invalid budget -1µs", Edit: func(o *Options) { o.Budgets = []time.Duration{-time.Microsecond} }},
		{Field: "Budgets", Want: "invalid budget 1s", Edit: func(o *Options) { o.Budgets = []time.Duration{time.Second} }},
		{Field: "Budgets", Want: "given twice", Edit: func(o *Options) { o.Budgets = []time.Duration{time.Microsecond, 1000} }},
		{Field: "Gaps", Want: "invalid gap -1ms", Edit: func(o *Options) { o.Gaps = []time.Duration{-time.Millisecond} }},
		{Field: "Gaps", Want: "invalid gap 1s", Edit: func(o *Options) { o.Gaps = []time.Duration{time.Second} }},
		{Field: "Gaps", Want: "give at least one gap", Edit: func(o *Options) { o.Gaps = nil }},
		{Field: "Gaps", Want: "more than its limit of 30m0s", Edit: func(o *Options) { o.Gaps = []time.Duration{100 * time.Millisecond}; o.Waits = 10000 }},
		{Field: "Waits", Want: "invalid waits 0", Edit: func(o *Options) { o.Waits = 0 }},
		{Field: "Rounds", Want: "invalid rounds 0", Edit: func(o *Options) { o.Rounds = 0 }},
		{Field: "Placements", Want: `unknown placement "moon"`, Edit: func(o *Options) { o.Placements = []string{"moon"} }},
		{Field: "Impls", Want: `unknown implementation "nosuch"`, Edit: func(o *Options) { o.Impls = []string{"nosuch"} }},
	})
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}

func TestParseBudget(t *testing.T) {
	for in, want := range map[string]time.Duration{"0": 0, "4us": 4 * time.Microsecond, "unbounded": Unbounded, "inf": Unbounded} {
		if got, err := ParseBudget(in); err != nil || got != want {
			t.Errorf("ParseBudget(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseBudget("soon"); err == nil {
		t.Errorf("ParseBudget(soon) accepted")
	}
	if BudgetLabel(Unbounded) != "unbounded" || BudgetLabel(0) != "0" {
		t.Errorf("labels: %q %q", BudgetLabel(Unbounded), BudgetLabel(0))
	}
}
