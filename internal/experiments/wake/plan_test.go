package wake

import (
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
)

// TestPlan: which configurations plan lays out for a set of options, or
// what it refuses, without running anything.
func TestPlan(t *testing.T) {
	drivertest.LinuxOnly(t, "the cases name Linux's implementations (futex)")
	for _, tc := range []struct {
		name    string
		set     func(o *Options)
		keys    []string
		wantErr string
	}{
		{"wake, one and all per call", func(o *Options) {
			o.Impls, o.Benches, o.Threads, o.Wakes = []string{"futex"}, []string{BenchWake}, []int{4}, []int{1, 0}
		}, []string{"futex/wake/n=4/w=1", "futex/wake/n=4/w=all"}, ""},
		{"a bench the implementation lacks is left out", func(o *Options) {
			o.Impls, o.Benches, o.Threads, o.Wakes, o.Requeues = []string{"pthread"}, []string{BenchRequeue, BenchWake}, []int{2}, []int{1}, []int{1}
		}, []string{"pthread/wake/n=2/w=1"}, ""},
		{"hash sweeps its own threads", func(o *Options) {
			o.Impls, o.Benches, o.HashThreads = []string{"lot"}, []string{BenchHash}, []int{1, 2}
		}, []string{"lot/hash/n=1/futexes=1024", "lot/hash/n=2/futexes=1024"}, ""},
		{"condvar", func(o *Options) {
			o.Impls, o.Benches = []string{"lot"}, []string{BenchCondvar}
		}, []string{"lot/condvar/capacity=16/held=true"}, ""},
		{"wakers must divide the waiters", func(o *Options) {
			o.Impls, o.Benches, o.Threads, o.Wakers = []string{"futex"}, []string{BenchParallel}, []int{4, 6}, []int{4}
		}, nil, "cannot share 6 waiters evenly"},
		{"unknown bench", func(o *Options) { o.Benches = []string{"nosuch"} }, nil, `unknown bench "nosuch"`},
		{"no threads", func(o *Options) { o.Threads = []int{0} }, nil, "invalid thread count 0"},
		{"no implementation has the bench", func(o *Options) {
			o.Impls, o.Benches = []string{"pthread"}, []string{BenchRequeue}
		}, nil, "nothing to run"},
		{"more woken per call than waiters", func(o *Options) {
			o.Impls, o.Benches, o.Threads, o.Wakes = []string{"futex"}, []string{BenchWake}, []int{2}, []int{4}
		}, nil, "nothing to run"},
	} {
		o := QuickOptions()
		tc.set(&o)
		p, err := plan(o)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.wantErr)
			}
			if o.Validate() == nil {
				t.Errorf("%s: Validate accepts what plan refuses", tc.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var keys []string
		for _, c := range p.cfgs {
			keys = append(keys, c.key(o))
		}
		if !slices.Equal(keys, tc.keys) {
			t.Errorf("%s: configurations %q, want %q", tc.name, keys, tc.keys)
		}
	}
}
