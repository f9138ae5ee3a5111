package spin

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/optionerr"
)

func TestOptionsRefused(t *testing.T) {
	drivertest.LinuxOnly(t, "spin runs on Linux only")
	cases := []struct {
		field, want string
		edit        func(*Options)
	}{
		{"Budgets", "invalid budget -1µs", func(o *Options) { o.Budgets = []time.Duration{-time.Microsecond} }},
		{"Budgets", "invalid budget 1s", func(o *Options) { o.Budgets = []time.Duration{time.Second} }},
		{"Budgets", "given twice", func(o *Options) { o.Budgets = []time.Duration{time.Microsecond, 1000} }},
		{"Gaps", "invalid gap -1ms", func(o *Options) { o.Gaps = []time.Duration{-time.Millisecond} }},
		{"Gaps", "invalid gap 1s", func(o *Options) { o.Gaps = []time.Duration{time.Second} }},
		{"Gaps", "give at least one gap", func(o *Options) { o.Gaps = nil }},
		{"Gaps", "more than its limit of 30m0s", func(o *Options) { o.Gaps = []time.Duration{100 * time.Millisecond}; o.Waits = 10000 }},
		{"Waits", "invalid waits 0", func(o *Options) { o.Waits = 0 }},
		{"Rounds", "invalid rounds 0", func(o *Options) { o.Rounds = 0 }},
		{"Placements", `unknown placement "moon"`, func(o *Options) { o.Placements = []string{"moon"} }},
		{"Impls", `unknown implementation "nosuch"`, func(o *Options) { o.Impls = []string{"nosuch"} }},
	}
	for _, c := range cases {
		o := QuickOptions()
		c.edit(&o)
		err := o.Validate()
		var oe *optionerr.Error
		if !errors.As(err, &oe) || oe.Field != c.field || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error on %s with %q", c.want, err, c.field, c.want)
		}
	}
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
