package timeout

import (
	"runtime"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
)

func TestStatsOf(t *testing.T) {
	var late []int64
	for i := 100; i >= 1; i-- {
		late = append(late, int64(i))
	}
	late = append(late, -7)
	st := overshootStatsOf(late)
	if st.min != -7 || st.max != 100 || st.early != 1 || st.median != 50 || st.p99 != 99 {
		t.Fatalf("%+v", st)
	}
	if (overshootStatsOf(nil) != overshootStats{}) {
		t.Fatal("empty")
	}
}

func TestTimeoutOptionsCheck(t *testing.T) {
	ok := QuickOptions()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	drivertest.WantRefused(t, DefaultOptions, []drivertest.Bad[Options]{
		{Field: "Deadlines", Edit: func(o *Options) { o.Deadlines = []time.Duration{0} }},
		{Field: "Deadlines", Edit: func(o *Options) { o.Deadlines = []time.Duration{-time.Millisecond} }},
		{Field: "Deadlines", Edit: func(o *Options) { o.Deadlines = []time.Duration{11 * time.Second} }},
		{Field: "Deadlines", Edit: func(o *Options) { o.Deadlines = nil }},
		{Field: "Samples", Edit: func(o *Options) { o.Samples = 0 }},
		{Field: "Samples", Edit: func(o *Options) { o.Samples = 1_000_001 }},
		{Field: "Slacks", Edit: func(o *Options) { o.Slacks = []time.Duration{-1} }},
		{Field: "Slacks", Edit: func(o *Options) { o.Slacks = nil }},
		// The list of valid names (std is valid on every OS).
		{Field: "Impls", Want: "std", Edit: func(o *Options) { o.Impls = []string{"no-such-parker"} }},
	})
	for _, s := range []string{"", "x", "0", "-1ns", "2s"} {
		if _, err := ParseSlack(s); err == nil {
			t.Errorf("ParseSlack(%q) accepted", s)
		}
	}
	if d, err := ParseSlack("1ns"); err != nil || d != 1 {
		t.Errorf("ParseSlack(1ns) = %v, %v", d, err)
	}
	if d, err := ParseSlack("default"); err != nil || d != 0 {
		t.Errorf("ParseSlack(default) = %v, %v", d, err)
	}
	o := QuickOptions()
	o.Impls = []string{"no-such-parker"}
	drivertest.Refused(t, "Run", Run, o)
}

// TestTimeoutNeverEarly runs a few real timed waits per mechanism and checks
// correctness only: no wait returns before its deadline, and none reports a
// wake nobody made (std's token parker may wake spuriously by contract, so
// its spurious count is not checked).
func TestTimeoutNeverEarly(t *testing.T) {
	longtest.Skip(t)
	o := Options{
		Impls:     []string{"all"},
		Deadlines: []time.Duration{10 * time.Microsecond, 200 * time.Microsecond},
		Samples:   4,
		Warmup:    1,
		Slacks:    []time.Duration{0},
	}
	if slackSupported {
		o.Slacks = append(o.Slacks, time.Nanosecond)
	}
	exp := drivertest.Run(t, Run, o)
	if len(exp.Configs) == 0 {
		t.Fatal("no configurations")
	}
	// Where Go's clock steps coarsely (Wine: ~4 ms), std's one wait of
	// whole milliseconds can end before Go's clock moves: "early" on that
	// clock only (the experiment warns). Its thread parkers loop on Go's
	// clock and are still checked.
	coarse := monoclock.Step(monoclock.GoClockNs) > time.Microsecond
	for _, c := range exp.Configs {
		if coarse && c.Impl == parkers.NameStd {
			t.Logf("%s: early returns not checked: Go's clock is coarse here (%v)", c.Key, c.Summary[MEarly])
		} else if c.Summary[MEarly] != 0 || c.Summary[results.MMin] < 0 {
			t.Errorf("%s returned before its deadline: %v", c.Key, c.Summary)
		}
		if c.Summary[results.MSamples] != 4 || c.Rounds[0].Histogram == "" {
			t.Errorf("%s: samples %v, histogram %q", c.Key, c.Summary[results.MSamples], c.Rounds[0].Histogram)
		}
		if c.Impl != "std" && c.Summary[MSpurious] != 0 {
			t.Errorf("%s: %v spurious wakes", c.Key, c.Summary[MSpurious])
		}
		if runtime.GOOS == "linux" && c.Params["slack"] == "1ns" && c.Summary[MSlack] != 1 {
			t.Errorf("%s: slack read back %v, want 1", c.Key, c.Summary[MSlack])
		}
	}
	if c := claimtest.Find(t, exp.Claims, ClaimNoEarlyReturn); c.Verdict != results.Holds && !coarse {
		t.Errorf("claim: %+v", c)
	}
}

func TestTimeoutLotParker(t *testing.T) {
	before := lot.CurrentBackend().Name
	o := Options{Impls: []string{"lot"}, Deadlines: []time.Duration{20 * time.Microsecond}, Samples: 2, Slacks: []time.Duration{0}, LotParker: "yield"}
	exp := drivertest.Run(t, Run, o)
	if len(exp.Configs) != 3 {
		t.Fatalf("--impl lot gave %d configurations", len(exp.Configs))
	}
	for _, c := range exp.Configs {
		if c.Params["lot_parker"] != "yield" || c.Params["kernel_timed"] != "false" || c.Summary[MEarly] != 0 {
			t.Errorf("%s: params %v early %v", c.Key, c.Params, c.Summary[MEarly])
		}
	}
	if after := lot.CurrentBackend().Name; after != before {
		t.Errorf("lot backend left at %q, was %q", after, before)
	}
	o.LotParker = "no-such-parker"
	drivertest.Refused(t, "bad --lot-parker", Run, o)
}

func TestTimeoutInterrupted(t *testing.T) {
	drivertest.Cancelled(t, Run, QuickOptions())
}
