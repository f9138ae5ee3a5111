package gate

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// Part is one launch of a trial: a parkbench measuring command (the
// experiment's name is its subcommand) with fixed flags; the gate adds
// --impl (the rows' implementations and their floors') and the output
// flags. A trial runs every part of the profile, each its own launch.
type Part struct {
	Experiment string   `json:"experiment"`
	Impls      []string `json:"impls"`
	Flags      []string `json:"flags"`
	// Raw: judge each row's figure itself, not as a ratio to its floor,
	// and measure no floor. For wake: the floor is a C waker, whose figure
	// follows the other vCPU's idle state on its own (it sleeps the
	// settle in C), so the ratio adds the floor's spread instead of
	// cancelling the machine's (docs/gate.md, "The wake part").
	Raw bool `json:"raw,omitempty"`
}

// DefaultProfile is the gate's headline profile (ab --profile=all): the
// latency part and the wake part, one launch of each per trial.
var DefaultProfile = []Part{LatencyPart, WakePart}

// LatencyPart: E12 latency of futex, lot and std, pinned cross-core, with
// c-futex, the C floor, measured in the same process, 30 interleaved
// rounds of 250 round trips, about 2 s a launch on a 2-vCPU VM
// (docs/gate.md: why these rows, and why many short interleaved rounds).
var LatencyPart = Part{
	Experiment: "latency",
	Impls:      []string{"futex", "lot", "std"},
	Flags:      []string{"--placement=cross-core", "--iterations=250", "--warmup=200", "--rounds=30", "--interleave", "--sched-counts=false"},
}

// WakePart is the waker's side (parkbench wake, perf bench futex's
// method): the median over 30 runs of the time to wake 16 sleeping
// waiters with one call (futex: one FUTEX_WAKE; lot: UnparkAll; std: the
// futex condvar's notify_all), a 5 ms settle (about 0.6 s a launch on a
// 2-vCPU VM). Judged raw (Part.Raw).
var WakePart = Part{
	Experiment: "wake",
	Impls:      []string{"futex", "lot", "std"},
	Flags:      []string{"--bench=wake", "--threads=16", "--wakes=0", "--runs=30", "--settle=5ms"},
	Raw:        true,
}

// Profile is what a trial measures (ab --profile): its parts, each one
// launch of a binary per trial.
type Profile struct {
	Name, Summary string
	Parts         []Part
}

// Profiles are the gate's profiles in help order (ab's help is generated
// from them).
var Profiles = []Profile{
	{"latency", "the latency part alone", []Part{LatencyPart}},
	{"wake", "the wake part alone", []Part{WakePart}},
	{"all", "both parts, one launch of each per trial (the default)", DefaultProfile},
}

// ProfileNames lists Profiles' names in order.
func ProfileNames() []string {
	var out []string
	for _, p := range Profiles {
		out = append(out, p.Name)
	}
	return out
}

// Args is the command line of a part measuring impls (the rows' and
// their floors'), its output one result file on stdout.
func (p Part) Args(impls []string) []string {
	args := append([]string{p.Experiment, "--impl=" + strings.Join(impls, ",")}, p.Flags...)
	return append(args, "--quiet", "--format=json", "--out=-")
}

// BinaryError says a binary cannot serve as a side of the gate: it is not
// parkbench, does not run the trial command, or writes a result this build
// cannot read. Commands exit 2 on it.
type BinaryError struct {
	Side Side
	Path string
	Err  error
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("the %s binary %s: %v", e.Side, e.Path, e.Err)
}
func (e *BinaryError) Unwrap() error { return e.Err }

// TrialError says a trial failed after the binary had run the warm-up
// trial: for the new binary a failure (a crash or a hang is worse than any
// slowdown), for the base one bad input.
type TrialError struct {
	Side  Side
	Path  string
	Index int // the launch, counting the warm-ups
	Err   error
}

func (e *TrialError) Error() string {
	return fmt.Sprintf("launch %d (the %s binary %s) failed: %v", e.Index, e.Side, e.Path, e.Err)
}
func (e *TrialError) Unwrap() error { return e.Err }

// ProcessSource runs trials as process launches of two binaries.
type ProcessSource struct {
	Bins    map[Side]string
	Profile []Part
	// Timeout bounds one launch (a lost wakeup hangs a trial).
	Timeout time.Duration
	// Version is what each binary's --version printed (or why not).
	Version map[Side]string
	// Tool is the build each binary's results name.
	Tool map[Side]results.Tool
	// Machine is where the warm-up ran.
	Machine results.Machine
	// Dropped lists the new binary's headline figures the base does not
	// measure: not judged.
	Dropped []string
	// specs are the new binary's metric descriptions by experiment.
	specs    map[string][]results.MetricSpec
	launches int
}

// launch runs bin with args under the timeout and returns stdout.
func (s *ProcessSource) launch(ctx context.Context, bin string, args []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Cancel = func() error {
		// An interrupt first, so the child restores what it changed and
		// writes nothing; killed if it has not gone in WaitDelay.
		if runtime.GOOS == "windows" {
			return cmd.Process.Kill()
		}
		return cmd.Process.Signal(os.Interrupt)
	}
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	s.launches++
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("did not finish within %v (a lost wakeup?): %s", s.Timeout, strings.Join(args, " "))
	}
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 && len(msg) > 400 {
			msg = "..." + msg[i:]
		}
		if msg == "" {
			msg = "no message"
		}
		return nil, fmt.Errorf("%s %s: %v: %s", bin, strings.Join(args, " "), err, msg)
	}
	return out.Bytes(), nil
}

// Prepare checks both binaries before any timed trial: each prints its
// version, then runs one warm-up trial of the whole profile (not counted:
// it also loads the binary and its pages), which must be a parkbench
// result this build reads, holding each part's experiment with a metric
// description and every headline configuration with its floor. It returns
// the rows the gate judges: the new binary's headline metrics on the
// profile's configurations. A binary that fails any of this is a
// BinaryError naming it.
func (s *ProcessSource) Prepare(ctx context.Context) ([]Row, error) {
	s.Version, s.Tool, s.specs = map[Side]string{}, map[Side]results.Tool{}, map[string][]results.MetricSpec{}
	if s.Timeout == 0 {
		s.Timeout = 2 * time.Minute
	}
	var rows []Row
	var baseErr error // the first part the base could not run
	baseRan, baseNoVersion := 0, false
	for _, side := range []Side{New, Base} {
		bin := s.Bins[side]
		noVersion, err := s.identify(ctx, side, bin)
		if err != nil {
			return nil, err
		}
		if side == Base {
			baseNoVersion = noVersion
		}
		for _, p := range s.Profile {
			f, err := s.warmUp(ctx, side, p)
			if err != nil && side == Base && ctx.Err() == nil {
				// A part the base cannot run (older than the part's
				// experiment) is not judged, as a new headline row is
				// not; a base that runs no part is no parkbench for the
				// gate (below).
				baseErr = cmp.Or(baseErr, err)
				rows = s.dropPart(rows, p, err)
				continue
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, &BinaryError{side, bin, cannotRun(noVersion, err)}
			}
			s.Tool[side] = f.Tool
			e := f.Experiment(p.Experiment)
			if side == New {
				s.Machine = f.Machine
				if rows, err = s.headlineRows(rows, e, p); err != nil {
					return nil, &BinaryError{side, bin, err}
				}
				continue
			}
			baseRan++
			rows = s.dropUnmeasured(rows, e, p)
		}
	}
	if baseRan == 0 && baseErr != nil {
		return nil, &BinaryError{Base, s.Bins[Base], cannotRun(baseNoVersion, baseErr)}
	}
	if len(rows) == 0 {
		if len(s.Dropped) > 0 {
			return nil, &BinaryError{Base, s.Bins[Base], fmt.Errorf("measures none of the new binary's headline figures: %s", strings.Join(s.Dropped, "; "))}
		}
		return nil, &BinaryError{New, s.Bins[New], errors.New("its trial has no headline figure (no metric marked headline on the profile's configurations)")}
	}
	return rows, nil
}

// identify is Prepare's first step: bin exists, is no directory, and its
// --version says parkbench (recorded in s.Version). A binary without
// --version (noVersion) may still be an old parkbench: its warm-up decides.
func (s *ProcessSource) identify(ctx context.Context, side Side, bin string) (noVersion bool, err error) {
	if st, err := os.Stat(bin); err != nil {
		return false, &BinaryError{side, bin, err}
	} else if st.IsDir() {
		return false, &BinaryError{side, bin, errors.New("is a directory")}
	}
	v, verr := s.launch(ctx, bin, []string{"--version"})
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if verr == nil && !bytes.HasPrefix(v, []byte("parkbench ")) {
		return false, &BinaryError{side, bin, fmt.Errorf("is not parkbench: --version printed %q", firstLine(v))}
	}
	s.Version[side] = strings.TrimSpace(firstLine(v))
	if verr != nil {
		s.Version[side] = "no --version: " + verr.Error()
	}
	return verr != nil, nil
}

// warmUp is Prepare's second step, one part's warm-up launch on side. It
// measures the part with the floors its metric description names: the new
// binary's when known (the base runs what the new one will judge), else
// the legacy table's; again if the description names floors not measured
// yet.
func (s *ProcessSource) warmUp(ctx context.Context, side Side, p Part) (*results.File, error) {
	specs := s.specs[p.Experiment]
	if specs == nil {
		specs, _ = results.Legacy(p.Experiment)
	}
	want := impls(p, nil, specs)
	f, err := s.run(ctx, side, p, want)
	if err == nil && side == New {
		if own, ok := f.Experiment(p.Experiment).Specs(); ok {
			if more := impls(p, nil, own); len(more) > len(want) {
				f, err = s.run(ctx, side, p, more)
			}
		}
	}
	return f, err
}

// headlineRows is Prepare's third step, on the new binary's warm-up of
// part p: its metric description (kept for the base's warm-up) and the
// rows it judges, each headline metric of each configuration of the
// part's implementations, as a ratio to its floor unless the part is raw.
func (s *ProcessSource) headlineRows(rows []Row, e *results.Experiment, p Part) ([]Row, error) {
	specs, described := e.Specs()
	if !described {
		return nil, fmt.Errorf("its %s result has no metric description", p.Experiment)
	}
	s.specs[p.Experiment] = specs
	for _, m := range specs {
		if !m.Headline {
			continue
		}
		for _, c := range e.Configs {
			if !slices.Contains(p.Impls, c.Impl) {
				continue
			}
			r := Row{Experiment: p.Experiment, Config: c.Key, Impl: c.Impl, Metric: m.Key, Header: m.Header, Higher: m.HigherIsBetter(), Unit: m.Unit}
			if fk := m.FloorKey(c); fk != "" && !p.Raw && e.Config(fk) != nil {
				r.Floor = fk
			}
			// On the slept waits where the row and its floor
			// record them (results.MetricSpec.Slept).
			if sleptRow(e, c, r, m) {
				r.Metric, r.Header = m.Slept, m.Header+" (slept)"
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// dropUnmeasured is Prepare's fourth step, on the base's warm-up of part
// p: a headline figure the base does not measure (new in this change)
// cannot be judged: dropped, and said so (s.Dropped).
func (s *ProcessSource) dropUnmeasured(rows []Row, e *results.Experiment, p Part) []Row {
	kept := rows[:0]
	for _, r := range rows {
		if r.Experiment == p.Experiment {
			if _, err := value(e, r); err != nil {
				s.Dropped = append(s.Dropped, fmt.Sprintf("%s %s: the base does not measure it (%v)", r.Experiment, r.Label(), err))
				continue
			}
		}
		kept = append(kept, r)
	}
	return kept
}

// dropPart drops every row of a part the base cannot run (err says why).
func (s *ProcessSource) dropPart(rows []Row, p Part, err error) []Row {
	kept := rows[:0]
	for _, r := range rows {
		if r.Experiment == p.Experiment {
			s.Dropped = append(s.Dropped, fmt.Sprintf("%s %s: the base cannot run the %s part (%v)", r.Experiment, r.Label(), p.Experiment, err))
			continue
		}
		kept = append(kept, r)
	}
	return kept
}

// sleptRow reports whether row r of configuration c is judged on m's
// slept-waits figure: m has one, and c and r's floor (if any) record it.
func sleptRow(e *results.Experiment, c *results.Config, r Row, m results.MetricSpec) bool {
	if m.Slept == "" {
		return false
	}
	if _, ok := c.Summary[m.Slept]; !ok {
		return false
	}
	if r.Floor == "" {
		return true
	}
	f := e.Config(r.Floor)
	if f == nil {
		return false
	}
	_, ok := f.Summary[m.Slept]
	return ok
}

// cannotRun says why a binary cannot serve: it failed the gate's trial
// (and --version too, when noVersion).
func cannotRun(noVersion bool, err error) error {
	if noVersion {
		return fmt.Errorf("is not parkbench, or too old for the gate's trial (--version failed too): %w", err)
	}
	return fmt.Errorf("cannot run the gate's trial: %w", err)
}

func firstLine(b []byte) string {
	l, _, _ := bytes.Cut(b, []byte("\n"))
	if len(l) > 120 {
		l = append(l[:120:120], "..."...)
	}
	return string(l)
}

// Command is the command line of a part's whole trial (its implementations
// and their floors), for the reader.
func (s *ProcessSource) Command(p Part) []string {
	return p.Args(impls(p, nil, s.specs[p.Experiment]))
}

// impls lists what a launch of part p measures for rows (nil: all of the
// part's implementations): their implementations and, for each headline
// metric of specs, their floors (c-futex), measured in the same launch.
func impls(p Part, rows []Row, specs []results.MetricSpec) []string {
	out := slices.Clone(p.Impls)
	if rows != nil {
		out = nil
		for _, r := range rows {
			if r.Experiment == p.Experiment && !slices.Contains(out, r.Impl) {
				out = append(out, r.Impl)
			}
		}
	}
	if p.Raw {
		return out
	}
	for _, m := range specs {
		if !m.Headline {
			continue
		}
		for _, im := range slices.Clone(out) {
			if f := m.FloorImpl(im); f != "" && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// run launches one part measuring impls and decodes its result.
func (s *ProcessSource) run(ctx context.Context, side Side, p Part, impls []string) (*results.File, error) {
	out, err := s.launch(ctx, s.Bins[side], p.Args(impls))
	if err != nil {
		return nil, err
	}
	f, err := results.Decode(out)
	if err != nil {
		return nil, fmt.Errorf("its output is not a result this build reads: %w", err)
	}
	if f.Experiment(p.Experiment) == nil {
		return nil, fmt.Errorf("its result holds no %s experiment", p.Experiment)
	}
	return f, nil
}

// Trial implements Source: one launch per part of the profile.
func (s *ProcessSource) Trial(ctx context.Context, side Side, rows []Row) (*Trial, error) {
	t := &Trial{Started: time.Now(), Values: map[string]float64{}, Raw: map[string]float64{}, Load: LoadAvg()}
	for _, p := range s.Profile {
		im := impls(p, rows, s.specs[p.Experiment])
		if len(im) == 0 {
			continue // none of this part's rows is still judged
		}
		f, err := s.run(ctx, side, p, im)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &TrialError{side, s.Bins[side], s.launches, err}
		}
		e := f.Experiment(p.Experiment)
		for _, r := range rows {
			if r.Experiment != p.Experiment {
				continue
			}
			v, err := value(e, r)
			if err != nil {
				return nil, &TrialError{side, s.Bins[side], s.launches, err}
			}
			t.Values[r.ID()] = v
			for _, k := range []string{r.Config, r.Floor} {
				if c := e.Config(k); c != nil {
					t.Raw[p.Experiment+" "+k+" "+r.Metric] = c.Summary[r.Metric]
					if len(c.Modes) > 1 && !slices.Contains(t.Multimodal, r.ID()) {
						t.Multimodal = append(t.Multimodal, r.ID())
					}
				}
			}
		}
	}
	t.Duration = time.Since(t.Started)
	return t, nil
}

// value is a row's figure in one result: the median over rounds of the
// configuration's value divided by its floor's in the same round (the
// rounds interleave, so round i of both ran back to back), or the ratio of
// the summaries when the round counts differ; the raw summary when the row
// has no floor.
func value(e *results.Experiment, r Row) (float64, error) {
	c := e.Config(r.Config)
	if c == nil {
		return 0, fmt.Errorf("no %s configuration %s", r.Experiment, r.Config)
	}
	if _, ok := c.Summary[r.Metric]; !ok {
		return 0, fmt.Errorf("%s %s has no %s", r.Experiment, r.Config, r.Metric)
	}
	if r.Floor == "" {
		return c.Summary[r.Metric], nil
	}
	f := e.Config(r.Floor)
	if f == nil {
		return 0, fmt.Errorf("no floor %s for %s %s", r.Floor, r.Experiment, r.Config)
	}
	if len(c.Rounds) == len(f.Rounds) && len(c.Rounds) > 0 {
		var q []float64
		for i := range c.Rounds {
			a, okA := c.Rounds[i].Metrics[r.Metric]
			b, okB := f.Rounds[i].Metrics[r.Metric]
			if okA && okB && b > 0 {
				q = append(q, a/b)
			}
		}
		if len(q) > 0 {
			return stats.Median(q), nil // q is not empty
		}
	}
	if d := f.Summary[r.Metric]; d > 0 {
		return c.Summary[r.Metric] / d, nil
	}
	return 0, fmt.Errorf("the floor %s of %s %s has no %s", r.Floor, r.Experiment, r.Config, r.Metric)
}

// LoadAvg is the 1-minute load average (Linux), -1 where unknown.
func LoadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}
