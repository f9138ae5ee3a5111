package timeout

import (
	"strconv"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/results"
)

// testConfig is a configuration of one deadline and slack: its minimum and
// median overshoot, early returns and the slack read back (ns), over 100
// waits.
func testConfig(impl, deadline, slack string, kernel bool, min, median, early, slackNs float64) *results.Config {
	return &results.Config{
		Key:    impl + "/deadline=" + deadline + "/slack=" + slack,
		Impl:   impl,
		Params: map[string]string{"deadline": deadline, "slack": slack, "kernel_timed": strconv.FormatBool(kernel)},
		Summary: map[string]float64{
			results.MMin: min, results.MMedian: median, results.MSamples: 100,
			MEarly: early, MSlack: slackNs,
		},
	}
}

func TestTimeoutClaimNoEarly(t *testing.T) {
	good := []*results.Config{testConfig("futex", "10µs", "default", true, 3000, 55000, 0, 50000)}
	claimtest.Want(t, "good numbers", claimtest.Find(t, Claims(good), ClaimNoEarlyReturn), results.Holds)
	bad := []*results.Config{
		testConfig("futex", "10µs", "default", true, 3000, 55000, 0, 50000),
		testConfig("std", "10µs", "default", true, -1200, 55000, 3, 50000),
		// a negative minimum without an early count still violates it
		testConfig("pthread", "10µs", "default", true, -5, 55000, 0, 50000),
	}
	c := claimtest.Find(t, Claims(bad), ClaimNoEarlyReturn)
	if c.Verdict != results.DoesNotHold || !strings.Contains(c.Why, "std/") || !strings.Contains(c.Evidence, "pthread/deadline=10µs/slack=default early returns 1") || strings.Contains(c.Why, "futex/") {
		t.Fatalf("violating numbers: %+v", c)
	}
	claimtest.Want(t, "no configs", claimtest.Find(t, Claims(nil), ClaimNoEarlyReturn), results.NotEvaluated)
}

func TestTimeoutClaimSlack(t *testing.T) {
	holds := []*results.Config{
		testConfig("futex", "10µs", "default", true, 50000, 60000, 0, 50000),
		testConfig("futex", "10µs", "1ns", true, 2000, 8000, 0, 1),
		testConfig("futex", "100µs", "default", true, 50000, 58000, 0, 50000),
		testConfig("futex", "100µs", "1ns", true, 2000, 9000, 0, 1),
		// long deadlines and non-kernel-timed rows are ignored
		testConfig("futex", "10ms", "default", true, 50000, 58000, 0, 50000),
		testConfig("futex", "10ms", "1ns", true, 2000, 90000, 0, 1),
		testConfig("chan", "10µs", "default", false, 50000, 10000, 0, 50000),
		testConfig("chan", "10µs", "1ns", false, 2000, 90000, 0, 1),
	}
	claimtest.Want(t, "holding numbers", claimtest.Find(t, Claims(holds), ClaimSlackDominates), results.Holds)
	// The small slack does not reduce the overshoot: violated.
	violates := []*results.Config{
		testConfig("futex", "10µs", "default", true, 50000, 60000, 0, 50000),
		testConfig("futex", "10µs", "1ns", true, 50000, 59000, 0, 1),
		testConfig("pthread", "10µs", "default", true, 50000, 60000, 0, 50000),
		testConfig("pthread", "10µs", "1ns", true, 2000, 70000, 0, 1),
	}
	c := claimtest.Find(t, Claims(violates), ClaimSlackDominates)
	if c.Verdict != results.DoesNotHold || !strings.Contains(c.Evidence, "0 of 2") {
		t.Fatalf("violating numbers: %+v", c)
	}
	// Only one slack measured: not evaluated.
	claimtest.Want(t, "one slack", claimtest.Find(t, Claims(holds[:1]), ClaimSlackDominates), results.NotEvaluated)
	// A machine whose default slack is not 50 µs: not evaluated.
	rt := []*results.Config{
		testConfig("futex", "10µs", "default", true, 0, 3000, 0, 0),
		testConfig("futex", "10µs", "1ns", true, 0, 3000, 0, 1),
	}
	claimtest.Want(t, "slack 0", claimtest.Find(t, Claims(rt), ClaimSlackDominates), results.NotEvaluated)
}
