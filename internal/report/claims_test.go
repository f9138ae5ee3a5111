package report_test

import (
	"bytes"
	"html"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/inversion"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/loaded"
	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/experiments/selfwake"
	"github.com/parkbench/parkbench/internal/experiments/spin"
	"github.com/parkbench/parkbench/internal/experiments/stacks"
	"github.com/parkbench/parkbench/internal/experiments/timeout"
	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/report"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// judge evaluates every claim of experiment e (by its name) on its
// configurations, as its run does; other is the run's selfwake, for the
// reverse check. numCPU is the machine's.
func judge(e *results.Experiment, other *results.Experiment, numCPU int) []results.Claim {
	cs := e.Configs
	switch e.Name {
	case "latency":
		out := append(latency.LatencyClaims(e), anatomy.Claims(e)...)
		if other != nil {
			out = latency.WithReverse(out, e, other)
		}
		return out
	case "selfwake":
		return selfwake.Claims(e)
	case "herd":
		return append(append(herd.Claims(cs, 0), herd.TraceClaims(cs)...), herd.IdleClaims(cs, numCPU)...)
	case "lock":
		return lock.Claims(cs, numCPU)
	case "rwlock":
		return lock.RwClaims(cs)
	case "wake":
		return wake.Claims(cs, numCPU)
	case "loaded":
		return loaded.Claims(cs)
	case "timeout":
		return timeout.Claims(cs)
	case "stacks":
		return stacks.Claims(cs)
	case "inversion":
		return inversion.Claims(cs)
	case "spin":
		return spin.Claims(cs)
	}
	return nil
}

var names = []string{"latency", "selfwake", "herd", "lock", "rwlock", "wake", "loaded", "timeout", "stacks", "inversion", "spin"}

// every is every claim of every experiment, not evaluated: judged on no
// measurement but the rows that make the optional claims appear (the
// original's, for the fidelity claims; a goroutine row, for lock's
// goroutine claim).
func every(t *testing.T) map[string][]results.Claim {
	out := map[string][]results.Claim{}
	n := 0
	for _, name := range names {
		e := &results.Experiment{Name: name}
		if name == "latency" || name == "selfwake" || name == "herd" || name == "lock" {
			e.Configs = []*results.Config{
				{Key: "c-rust-parking_lot", Impl: "c-rust-parking_lot", Kind: results.KindCRef, Params: map[string]string{}},
				{Key: "x/goroutines", Impl: "x", Params: map[string]string{"participants": driver.Goroutines}},
			}
		}
		for _, c := range judge(e, &results.Experiment{Name: "selfwake"}, 2) {
			if c.Verdict != results.NotEvaluated {
				t.Errorf("%s %s on no measurement: %s", name, c.ID, c.Verdict)
			}
			out[name] = append(out[name], c)
			n++
		}
	}
	// docs/experiments.md lists them: about forty, every one here.
	if n < 40 {
		t.Errorf("%d claims, want every claim of every experiment (40 or more)", n)
	}
	return out
}

// states are each claim in the four states, decided by the kit on
// synthetic figures shaped like the experiments' (a ratio, a time, a
// share, a count; a band; the run's noise; too few rounds; many figures).
func states(c results.Claim) map[string]results.Claim {
	rule := func(figs ...claim.Figure) results.Claim {
		return claim.Evaluate(claim.Rule{ID: c.ID, Statement: c.Statement, Needs: c.Why, MinRounds: 3,
			Figures: func([]*results.Config) []claim.Figure { return figs }}, []*results.Config{{}})
	}
	band := func(name string, rounds ...float64) claim.Figure {
		return claim.Fig(name, rounds).In("x").AtLeast(0.9).AtMost(1.1)
	}
	var many []claim.Figure
	for i := range 12 {
		many = append(many, band("lot-wakeall/unpinned/notify=notify-all/lock-held=true/n=64 total/serial", 1, 1.01+float64(i)/200, 0.99))
	}
	return map[string]results.Claim{
		"holds":    rule(many...),
		"does not": rule(append(many, band("sync/unpinned/notify=notify-all/lock-held=true/n=64 total/serial", 1.31, 1.29, 1.35), claim.Fig("sync max wait", []float64{3e6, 3.4e6, 2.9e6}).In("ms").AtMost(2e6))...),
		"near": rule(claim.Fig("n=64 unpinned held=true lot proc", []float64{111, 117, 133, 126, 110}).AtMost(132),
			claim.Fig("cross-core: futex/c-futex median (slept waits)", []float64{1.02, 0.93, 0.87}).In("x").AtMost(1.1).Noisy([]float64{0.11}, "futex-raw and c-futex apart")),
		"does not, near": rule(claim.Fig("4x spin-park/futex p99", []float64{0.62}).In("x").Above(1),
			claim.Fig("no-sleep share", []float64{0.012, 0.009, 0.02}).In("%").AtMost(0.01)),
		"not evaluated": c,
	}
}

// recorded are the recorded result files, every claim judged again. Under
// -short, the newest of each kind (suite, latency) only: reading, judging and
// rendering a recorded suite takes 3 to 5 s under the race detector, and
// .ci/run's long tests step runs this package without -short, every file
// (docs/reliability.md, "Long tests").
func recorded(t *testing.T) []*results.File {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "results", "*", "*.json"))
	if longtest.Short() {
		newest := map[string]string{}
		for _, p := range paths {
			base := filepath.Base(p)
			kind, _, _ := strings.Cut(base, "-")
			if base > filepath.Base(newest[kind]) {
				newest[kind] = p
			}
		}
		paths = paths[:0]
		for _, p := range newest {
			paths = append(paths, p)
		}
		sort.Strings(paths)
	}
	var out []*results.File
	for _, p := range paths {
		f, err := results.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var sw *results.Experiment
		for _, e := range f.Experiments {
			if e.Name == "selfwake" {
				sw = e
			}
		}
		for _, e := range f.Experiments {
			e.Claims = judge(e, sw, max(f.Machine.LogicalCPUs, 1))
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		t.Fatal("no recorded result file under results/")
	}
	return out
}

// TestEveryClaimRendered renders every claim of every experiment in each
// state, and as the recorded suites judge them again, in text, markdown
// and HTML, and checks each line: a claim that does not hold or is near its
// limit has a reason with a number, one not evaluated a reason; no claim
// line ends in a colon (a label with nothing after it); no text line is
// wider than textfmt.Columns.
func TestEveryClaimRendered(t *testing.T) {
	for name, cls := range every(t) {
		for _, c := range cls {
			for state, s := range states(c) {
				want := map[string]string{"holds": results.Holds, "does not": results.DoesNotHold, "near": results.Holds,
					"does not, near": results.DoesNotHold, "not evaluated": results.NotEvaluated}[state]
				if s.Verdict != want || s.Near != strings.Contains(state, "near") {
					t.Errorf("%s %s %s: %s near=%v", name, c.ID, state, s.Verdict, s.Near)
				}
				checkRendered(t, name+" "+c.ID+" "+state, &results.File{Format: results.Format, Version: results.Version,
					Experiments: []*results.Experiment{{Name: name, Claims: []results.Claim{s}}}})
			}
		}
	}
	for _, f := range recorded(t) {
		checkRendered(t, "recorded", f)
	}
}

var (
	digit  = regexp.MustCompile(`[0-9]`)
	htmlLi = regexp.MustCompile(`(?s)<li class="(fails|holds|unknown)"><span class="verdict">([^<]*)</span> <b>([^<]*)</b>(.*?)</li>`)
	// claimLine opens a claim's lines: its summary line, its section.
	claimLine = regexp.MustCompile(`^(- )?(claim |why: |evidence: |does not hold|holds, near)`)
)

func checkRendered(t *testing.T, what string, f *results.File) {
	t.Helper()
	var all []results.Claim
	for _, e := range f.Experiments {
		all = append(all, e.Claims...)
	}
	for _, c := range all {
		r := report.Reason(c)
		switch {
		case c.Verdict == results.Holds && !c.Near:
		case r == "" || strings.HasSuffix(r, ":") || strings.Contains(r, "\n"):
			t.Errorf("%s: %s (%s): reason %q", what, c.ID, c.VerdictText(), r)
		case c.Verdict != results.NotEvaluated && !digit.MatchString(r):
			t.Errorf("%s: %s (%s): reason %q has no number", what, c.ID, c.VerdictText(), r)
		}
	}
	for _, format := range []string{"table", "markdown", "html"} {
		var b bytes.Buffer
		if err := report.RenderFiles(&b, []results.Named{{Name: "claims.json", File: f}}, format, report.Options{Verbose: format == "html"}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if format == "html" {
			n := 0
			for _, m := range htmlLi.FindAllStringSubmatch(out, -1) {
				n++
				why := regexp.MustCompile(`<span class="why">why: ([^<]*)</span>`).FindStringSubmatch(m[4])
				clear := m[1] == "holds" && !strings.Contains(m[2], "NEAR")
				if !clear && (why == nil || strings.TrimSpace(html.UnescapeString(why[1])) == "") {
					t.Errorf("%s: html: %s %s without a reason: %s", what, m[3], m[2], m[4])
				}
			}
			if n != len(all) {
				t.Errorf("%s: html: %d claims, want %d", what, n, len(all))
			}
			continue
		}
		// A claim's line ending in a colon is a label with nothing after
		// it, unless the same item's wrapped text goes on under it.
		lines := strings.Split(out, "\n")
		indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
		start, inClaim := 0, false
		for i, l := range lines {
			if i == 0 || indent(l) <= start {
				start, inClaim = indent(l), claimLine.MatchString(strings.TrimSpace(l))
			}
			more := i+1 < len(lines) && indent(lines[i+1]) > start && strings.TrimSpace(lines[i+1]) != ""
			if inClaim && strings.HasSuffix(strings.TrimSpace(l), ":") && !more {
				t.Errorf("%s: %s line %d ends in a colon: %q", what, format, i+1, l)
			}
			if w := textfmt.Width(l); format == "table" && w > textfmt.Columns {
				t.Errorf("%s: %s line %d is %d columns: %q", what, format, i+1, w, l)
			}
		}
		// Every claim that is not a clear hold says why under its line,
		// unless three or more not evaluated share one line.
		for _, c := range all {
			i := strings.Index(out, "claim "+c.ID+": ")
			if c.Verdict == results.Holds && !c.Near || i < 0 {
				continue
			}
			if block := strings.SplitN(out[i+6:], "claim ", 2)[0]; !strings.Contains(block, "why: ") {
				t.Errorf("%s: %s: %s %s has no why under it", what, format, c.ID, c.VerdictText())
			}
		}
	}
}
