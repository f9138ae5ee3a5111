package results

import (
	"fmt"
	"strings"
)

// MetricSpec describes one figure of an experiment, once: how report shows
// it, which way is better, what compare and benchstat judge, what plot
// draws, what the A/B gate gates, and the same-run floor it can be divided
// by. Each experiment declares its list (the metricspec.go of its package)
// and writes it into every result (Experiment.Metrics); report, compare,
// benchstat output, plot and the gate read it instead of switching on the
// experiment's name. Files written before the description existed fall back
// to one table, Legacy.
type MetricSpec struct {
	// Key is the metric's name in Round.Metrics and Config.Summary.
	Key string `json:"key"`
	// Header is its column header (report, compare).
	Header string `json:"header"`
	// Unit says how the value is shown: UnitMicros (stored in ns, shown in
	// µs), UnitNanos (ns) or "" (a plain number: a count, a ratio, Mops).
	Unit string `json:"unit,omitempty"`
	// Better is Lower or Higher: which direction is an improvement.
	Better string `json:"better"`
	// Main marks the experiment's main figure (at most one): report's
	// summary line gives its spread over the configurations.
	Main bool `json:"main,omitempty"`
	// Judged: compare judges it (the primary figures of the experiment).
	Judged bool `json:"judged,omitempty"`
	// Headline: the A/B gate (internal/gate) judges it, as a ratio to its
	// floor, on the configurations of the gate's profile.
	Headline bool `json:"headline,omitempty"`
	// Diagnostic: it says whether a figure can be trusted rather than
	// answering the question; tables show it only when wide.
	Diagnostic bool `json:"diagnostic,omitempty"`
	// Benchstat is its unit in the Go benchmark format ("ns/op",
	// "p99-ns/op"); "" leaves it out. The ns/op metric is written first.
	Benchstat string `json:"benchstat,omitempty"`
	// Floor is the implementation whose configuration in the same run is
	// this figure's floor (the C reference: c-futex for E12's sleeping
	// parkers); FloorByImpl overrides it per implementation ("" for
	// none: the floor itself, or no meaningful floor). The floor of a
	// configuration is the one whose key is the floor implementation
	// followed by the same placement and parameters (FloorKey).
	Floor       string            `json:"floor,omitempty"`
	FloorByImpl map[string]string `json:"floor_by_impl,omitempty"`
	// Slept is the key of the same figure over the waits that slept only
	// (latency's median_slept_ns), recorded per round; "" for none. The
	// gate judges a headline row on it where the configuration and its
	// floor record it: a delay on the wake path lengthens every slept wait
	// but also lets more waits find their reply before they sleep, so the
	// overall median splits instead of shifting (futex/cross-core on the
	// AMD EPYC guest: multimodal in 9 of 10 trials, "unknown" twice under
	// a 2 µs delay in the parker's own Unpark).
	Slept string `json:"slept,omitempty"`
	// Pivot asks report for a table of this figure by a parameter (one row
	// per value, one column per configuration group).
	Pivot *PivotSpec `json:"pivot,omitempty"`
	// Plot says how plot draws it; nil: not drawn.
	Plot *PlotSpec `json:"plot,omitempty"`
	// Section names the table of its own that shows it instead of a
	// column of the configuration table ("anatomy": report's anatomy
	// table and stacked bars); compare, benchstat and the gate read it as
	// any figure.
	Section string `json:"section,omitempty"`
}

// SectionAnatomy is the Section of the wake anatomy's figures
// (internal/anatomy).
const SectionAnatomy = "anatomy"

// PivotSpec is report's table of a figure by a configuration parameter.
type PivotSpec struct {
	// Param is the Config.Params key ("n": herd's waiter count).
	Param string `json:"param"`
	// Title describes the figure ("notify -> last release").
	Title string `json:"title"`
}

// PlotSpec is how plot draws a figure.
type PlotSpec struct {
	// Kind is PlotPercentile (the configurations' merged round histograms
	// by percentile: the figure is their median), PlotParam (the summary
	// against Param, one line per configuration group, one panel per
	// figure), PlotThreads (against the thread count of the key's /t=N,
	// with the per-thread distribution beside it: lock's throughput) or
	// PlotTradeoff (the figure against the figure X, one line per value of
	// Param through the rows of one kind, the others as points: spin's
	// latency against CPU per wait).
	Kind  string `json:"kind"`
	Param string `json:"param,omitempty"`
	// X is the figure on the x axis (PlotTradeoff).
	X string `json:"x,omitempty"`
	// Title and Axis label the panel and its y axis.
	Title string `json:"title"`
	Axis  string `json:"axis"`
}

// Metric description values.
const (
	Lower  = "lower"
	Higher = "higher"

	UnitMicros = "us"
	UnitNanos  = "ns"

	PlotPercentile = "percentile"
	PlotParam      = "param"
	PlotThreads    = "threads"
	PlotTradeoff   = "tradeoff"
)

// HigherIsBetter reports whether a rise of the figure is an improvement.
func (m MetricSpec) HigherIsBetter() bool { return m.Better == Higher }

// IsTime reports whether the figure is a time (shown in ns or µs).
func (m MetricSpec) IsTime() bool { return m.Unit == UnitMicros || m.Unit == UnitNanos }

// FloorImpl is the floor implementation of a configuration of impl, or ""
// when it has none (or is the floor).
func (m MetricSpec) FloorImpl(impl string) string {
	f, ok := m.FloorByImpl[impl]
	if !ok {
		f = m.Floor
	}
	if f == impl {
		return ""
	}
	return f
}

// FloorKey is the key of c's floor configuration for this figure: the
// floor implementation followed by c's placement and parameters ("futex/
// cross-core" -> "c-futex/cross-core"), or "" when c has no floor.
func (m MetricSpec) FloorKey(c *Config) string {
	f := m.FloorImpl(c.Impl)
	if f == "" || c.Impl == "" || !strings.HasPrefix(c.Key, c.Impl) {
		return ""
	}
	return f + c.Key[len(c.Impl):]
}

// Specs returns the experiment's metric description: the one it carries,
// else the fallback for files written before experiments declared theirs
// (Legacy). described is false when neither exists (an experiment this
// build does not know, from a file without a description).
func (e *Experiment) Specs() (specs []MetricSpec, described bool) {
	if len(e.Metrics) > 0 {
		return e.Metrics, true
	}
	return Legacy(e.Name)
}

// Spec returns the description of metric key, if the experiment has one.
func (e *Experiment) Spec(key string) (MetricSpec, bool) {
	specs, _ := e.Specs()
	for _, s := range specs {
		if s.Key == key {
			return s, true
		}
	}
	return MetricSpec{}, false
}

// MainKey is the key of e's main figure (its metric description's Main;
// the median for an experiment without a description), "" for none.
func (e *Experiment) MainKey() string {
	specs, ok := e.Specs()
	if !ok {
		return MMedian
	}
	for _, m := range specs {
		if m.Main {
			return m.Key
		}
	}
	return ""
}

// Config returns the configuration with key k, or nil.
func (e *Experiment) Config(k string) *Config {
	for _, c := range e.Configs {
		if c.Key == k {
			return c
		}
	}
	return nil
}

// Legacy is the metric description of files written before experiments
// declared theirs (Experiment.Metrics empty): what report, compare,
// benchstat and plot did for each experiment then. It is the one place
// that switches on experiment names; new experiments declare their metrics
// and never need an entry. described is false for a name it does not know.
func Legacy(name string) (specs []MetricSpec, described bool) {
	for _, l := range legacy {
		if l.name == name {
			return l.specs, true
		}
	}
	return nil, false
}

// LegacyNames lists the experiments Legacy describes, in display order.
func LegacyNames() []string {
	var out []string
	for _, l := range legacy {
		out = append(out, l.name)
	}
	return out
}

// Shorthands for the table below.
func us(key, header string) MetricSpec {
	return MetricSpec{Key: key, Header: header, Unit: UnitMicros, Better: Lower}
}
func count(key, header string) MetricSpec {
	return MetricSpec{Key: key, Header: header, Better: Lower}
}
func diag(key, header, bench string) MetricSpec {
	return MetricSpec{Key: key, Header: header, Better: Lower, Diagnostic: true, Benchstat: bench}
}
func more(key, header string) MetricSpec { return MetricSpec{Key: key, Header: header, Better: Higher} }

var (
	e12Floors  = map[string]string{"spin": "c-spin", "generic": "c-spin", "go-spin": "c-spin", "c-spin": ""}
	lockFloors = map[string]string{"spin": "c-spin", "c-spin": ""}
)

// legacy is frozen: it describes what version-1 files without a metric
// description mean, and changes only if that reading was wrong.
var legacy = []struct {
	name  string
	specs []MetricSpec
}{
	{"latency", []MetricSpec{
		{Key: MMin, Header: "min", Unit: UnitMicros, Better: Lower, Benchstat: "min-ns/op"},
		{Key: MMedian, Header: "median", Unit: UnitMicros, Better: Lower, Main: true, Judged: true, Headline: true, Benchstat: "ns/op",
			Floor: "c-futex", FloorByImpl: e12Floors,
			Plot: &PlotSpec{Kind: PlotPercentile, Title: "wake latency by percentile", Axis: "one-way wake latency (µs)"}},
		{Key: MP99, Header: "p99", Unit: UnitMicros, Better: Lower, Judged: true, Benchstat: "p99-ns/op", Floor: "c-futex", FloorByImpl: e12Floors},
		{Key: MP999, Header: "p99.9", Unit: UnitMicros, Better: Lower, Benchstat: "p99.9-ns/op"},
		{Key: MMax, Header: "max", Unit: UnitMicros, Better: Lower, Benchstat: "max-ns/op"},
		diag(MNoSleep, "no-sleep", "no-sleep-waits"),
		diag(MCtxSwSelf, "csw/rt self", "ctxsw-self/op"),
		diag(MCtxSwThread, "csw/rt thr", "ctxsw-thread/op"),
		diag("ctxsw_other_per_rt", "csw/rt other", ""),
		diag("ctxsw_sysmon_per_rt", "csw/rt sysmon", ""),
		diag("sched_steals_per_rt", "steals/rt", ""),
	}},
	{"selfwake", []MetricSpec{
		{Key: MNsPerPair, Header: "ns/pair", Unit: UnitNanos, Better: Lower, Main: true, Judged: true, Benchstat: "ns/op", Floor: "syscall"},
		diag(MNoSleep, "no-sleep", ""),
	}},
	{"timeout", []MetricSpec{
		us(MMin, "min late"),
		{Key: MMedian, Header: "median late", Unit: UnitMicros, Better: Lower, Main: true, Judged: true, Benchstat: "late-ns/op", Floor: "nanosleep",
			Plot: &PlotSpec{Kind: PlotPercentile, Title: "timed park: lateness past the deadline by percentile", Axis: "late (µs)"}},
		{Key: MP99, Header: "p99 late", Unit: UnitMicros, Better: Lower, Judged: true, Benchstat: "p99-late-ns/op", Floor: "nanosleep"},
		{Key: MMax, Header: "max late", Unit: UnitMicros, Better: Lower, Benchstat: "max-late-ns/op"},
		count("early_returns", "early"),
		count("timerslack_ns", "slack ns"),
	}},
	{"herd", []MetricSpec{
		count(MReturn, "return"),
		{Key: MFirstNs, Header: "first", Unit: UnitMicros, Better: Lower, Judged: true, Benchstat: "first-ns/op", Floor: "pthread",
			Pivot: &PivotSpec{Param: "n", Title: "notify -> first waiter holds the lock"},
			Plot:  &PlotSpec{Kind: PlotParam, Param: "n", Title: "notify_all -> first waiter holds the lock", Axis: "first waiter (µs)"}},
		{Key: MTotalNs, Header: "total", Unit: UnitMicros, Better: Lower, Main: true, Judged: true, Benchstat: "total-ns/op", Floor: "pthread",
			Pivot: &PivotSpec{Param: "n", Title: "notify -> last release"},
			Plot:  &PlotSpec{Kind: PlotParam, Param: "n", Title: "notify_all -> last waiter released", Axis: "total (µs)"}},
		{Key: MCtxSwProc, Header: "csw proc", Better: Lower, Benchstat: "ctxsw-proc/op"},
		{Key: MCtxSwParts, Header: "csw parts", Better: Lower, Benchstat: "ctxsw-participants/op"},
		count(MUnparked, "unparked"),
		count(MRequeued, "requeued"),
	}},
	{"lock", []MetricSpec{
		{Key: "total_mops", Header: "total Mops", Better: Higher, Judged: true, Floor: "c-pthread", FloorByImpl: lockFloors,
			Plot: &PlotSpec{Kind: PlotThreads, Title: "total acquisitions per µs against threads", Axis: "total Mops (all threads)"}},
		more("khz_per_thread_median", "kHz/thr med"),
		more("khz_per_thread_avg", "kHz/thr avg"),
		count("khz_per_thread_stddev", "kHz/thr sd"),
		more("jain_index", "Jain"),
		more("min_max_ratio", "min/max"),
		{Key: "wait_p99_ns", Header: "wait p99", Unit: UnitMicros, Better: Lower, Judged: true, Floor: "c-pthread", FloorByImpl: lockFloors},
		us("wait_max_ns", "wait max"),
		count("cpu_busy_cores", "cores busy"),
		{Key: "cpu_ns_per_acquire", Header: "CPU/acq", Unit: UnitNanos, Better: Lower},
		{Key: "uncontended_ns", Header: "uncontended", Unit: UnitNanos, Better: Lower, Judged: true, Floor: "c-pthread", FloorByImpl: lockFloors},
	}},
	{"rwlock", []MetricSpec{
		{Key: "read_mops", Header: "read Mops", Better: Higher, Judged: true, Floor: "c-pthread"},
		{Key: "write_mops", Header: "write Mops", Better: Higher, Judged: true, Floor: "c-pthread"},
		more("khz_per_reader_median", "kHz/reader med"),
		more("khz_per_writer_median", "kHz/writer med"),
		more("jain_index_readers", "Jain readers"),
		more("jain_index_writers", "Jain writers"),
		{Key: "write_wait_max_ns", Header: "write wait max", Unit: UnitMicros, Better: Lower, Judged: true, Floor: "c-pthread"},
		more("writer_min_acquired", "least writer"),
		count("cpu_busy_cores", "cores busy"),
	}},
	// stacks records no figures: each configuration's Detail is the result.
	{"stacks", []MetricSpec{}},
}

// unitInHeader: a header that ends in a unit in parentheses (the table
// renderers append the spec's unit, so it would print twice).
func unitInHeader(h string) bool {
	for _, u := range []string{"(µs)", "(us)", "(ns)", "(ms)"} {
		if strings.HasSuffix(h, u) {
			return true
		}
	}
	return false
}

// CheckSpecs checks a metric description: keys present and unique, a
// direction, a known unit and plot kind, at most one main figure.
func CheckSpecs(specs []MetricSpec) error {
	seen := map[string]bool{}
	mains := 0
	for _, m := range specs {
		switch {
		case m.Key == "":
			return fmt.Errorf("a metric without a key")
		case seen[m.Key]:
			return fmt.Errorf("metric %s described twice", m.Key)
		case m.Better != Lower && m.Better != Higher:
			return fmt.Errorf("metric %s: better %q, want %q or %q", m.Key, m.Better, Lower, Higher)
		case m.Unit != "" && m.Unit != UnitMicros && m.Unit != UnitNanos:
			return fmt.Errorf("metric %s: unit %q, want %q, %q or none", m.Key, m.Unit, UnitMicros, UnitNanos)
		case m.Plot != nil && m.Plot.Kind != PlotPercentile && m.Plot.Kind != PlotParam && m.Plot.Kind != PlotThreads:
			return fmt.Errorf("metric %s: plot kind %q", m.Key, m.Plot.Kind)
		case m.Headline && m.Diagnostic && m.Slept == "":
			// A hidden headline is allowed only where the gate judges
			// its slept figure, which the table shows (latency's wake).
			return fmt.Errorf("metric %s: a diagnostic cannot be a headline", m.Key)
		case m.Unit != "" && unitInHeader(m.Header):
			return fmt.Errorf("metric %s: header %q names its unit, which the renderer appends", m.Key, m.Header)
		}
		seen[m.Key] = true
		if m.Main {
			mains++
		}
	}
	if mains > 1 {
		return fmt.Errorf("%d main figures, want at most one", mains)
	}
	return nil
}
