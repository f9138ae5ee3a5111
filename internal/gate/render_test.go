package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

func synthReport(t *testing.T, shift float64) *Report {
	t.Helper()
	opt := testOptions()
	opt.Seed = 5
	src := &synth{rng: rand.New(rand.NewPCG(5, 5)), sigma: 0.03, shift: map[string]float64{synthRows[0].ID(): shift}}
	out, err := Run(context.Background(), src, synthRows, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultProfile[0]
	return &Report{Format: "parkbench-ab", Version: 1, Base: Binary{Path: "/tmp/base/parkbench", Version: "parkbench devel (0123456789ab) go1.26.8"},
		New: Binary{Path: "/tmp/new/parkbench", Version: "parkbench devel (ba9876543210) go1.26.8"}, Profile: DefaultProfile,
		Command: p.Args(append(p.Impls, "c-futex")), Outcome: out,
		Machine: results.Machine{Slug: "linux-amd64-2cpu-intel-xeon-f6m167-vm", TimingClock: "runtime.nanotime (CLOCK_MONOTONIC / mach_absolute_time)", ClockResolutionNs: 1}}
}

// TestRender: the verdict is the first line, the table has the row, both
// medians, the ratio with its interval, p and the verdict, and the text
// fits 120 columns.
func TestRender(t *testing.T) {
	for _, c := range []struct {
		shift float64
		first string
	}{{0, "parkbench ab: no regression: 3 headline rows ("}, {0.2, "parkbench ab: REGRESSION: 3 headline rows (1 slower, "}} {
		r := synthReport(t, c.shift)
		var buf bytes.Buffer
		if err := Render(&buf, r, "text"); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if !strings.HasPrefix(lines[0], c.first) {
			t.Errorf("first line %q, want %q...", lines[0], c.first)
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > 120 {
				t.Errorf("%d columns: %q", n, l)
			}
		}
		for _, want := range []string{"row", "base", "new", "new/base [CI]", "p (adj)", "verdict", "futex/cross-core median/c-futex", "geomean of 3 rows"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, buf.String())
			}
		}
		if c.shift > 0 && !strings.Contains(buf.String(), "SLOWER") {
			t.Errorf("no SLOWER row:\n%s", buf.String())
		}
		buf.Reset()
		if err := Render(&buf, r, "json"); err != nil {
			t.Fatal(err)
		}
		var back Report
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Trials) != len(r.Trials) || back.Options.Seed != 5 {
			t.Fatalf("json: %v, %d trials", err, len(back.Trials))
		}
		buf.Reset()
		if err := Render(&buf, r, "markdown"); err != nil || !strings.HasPrefix(buf.String(), "**parkbench ab: ") {
			t.Fatalf("markdown: %v\n%s", err, buf.String())
		}
	}
}
