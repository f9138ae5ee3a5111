package results

import (
	"github.com/parkbench/parkbench/internal/stats"
	"strconv"
	"time"
)

// Format identifies a parkbench result file; Version is bumped on any change
// that an older reader would misread.
const (
	Format  = "parkbench-result"
	Version = 1
)

// File is one run of parkbench: one or more experiments on one machine.
type File struct {
	Format      string        `json:"format"`
	Version     int           `json:"version"`
	Tool        Tool          `json:"tool"`
	Started     time.Time     `json:"started"`
	Finished    time.Time     `json:"finished"`
	Command     []string      `json:"command"`
	Machine     Machine       `json:"machine"`
	Experiments []*Experiment `json:"experiments"`
	Warnings    []string      `json:"warnings,omitempty"`
}

// Experiment is f's experiment named name, nil when f has none.
func (f *File) Experiment(name string) *Experiment {
	for _, e := range f.Experiments {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Tool is the parkbench build that produced a file.
type Tool struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
}

// Machine describes where a run happened.
type Machine struct {
	Hostname string `json:"hostname"`
	Slug     string `json:"slug"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	Kernel   string `json:"kernel,omitempty"`
	CPUModel string `json:"cpu_model,omitempty"`
	// CPUVendor, CPUFamily and CPUModelNumber are x86's CPUID vendor string
	// and family and model numbers (/proc/cpuinfo vendor_id, cpu family,
	// model), which a hypervisor's CPU string may leave out; 0 when
	// unknown. Part of the machine class (Slug).
	CPUVendor      string `json:"cpu_vendor,omitempty"`
	CPUFamily      int    `json:"cpu_family,omitempty"`
	CPUModelNumber int    `json:"cpu_model_number,omitempty"`
	LogicalCPUs    int    `json:"logical_cpus"`
	Virtualization string `json:"virtualization,omitempty"`
	ClockSource    string `json:"clock_source,omitempty"`
	// TimingClock is the clock every experiment times with
	// (internal/monoclock) and ClockResolutionNs its resolution
	// (monoclock.Resolution: the step it advances by; 1 for a clock that
	// moves between any two reads): a measured interval below it is not a
	// measurement.
	TimingClock       string     `json:"timing_clock,omitempty"`
	ClockResolutionNs float64    `json:"clock_resolution_ns,omitempty"`
	Governor          string     `json:"cpu_governor,omitempty"`
	GoVersion         string     `json:"go_version"`
	LoadAvg           [3]float64 `json:"load_avg"`
	// FutexHash is the futex hash table this process's private futexes
	// go through (Linux): "private" (its own table, Linux 6.16+:
	// PR_FUTEX_HASH) or "global" (the kernel's one table); empty where
	// there are no futexes. FutexHashSlots is the private table's size when
	// the run started; it grows with the threads.
	FutexHash      string `json:"futex_hash,omitempty"`
	FutexHashSlots int    `json:"futex_hash_slots,omitempty"`
}

// Experiment is what one experiment returns: its options, the runtime
// settings it ran under, one Config per implementation x placement x
// parameter, and the claims evaluated from the numbers.
type Experiment struct {
	// Name is the experiment's, its command's (internal/experiments/
	// registry.go lists them).
	Name     string            `json:"name"`
	Options  map[string]string `json:"options"`
	Runtime  Runtime           `json:"runtime"`
	Configs  []*Config         `json:"configs"`
	Claims   []Claim           `json:"claims,omitempty"`
	Warnings []string          `json:"warnings,omitempty"`
	// Notes are free-form explanations an experiment wants rendered
	// (stacks uses them for its per-mechanism explanation).
	Notes []string `json:"notes,omitempty"`
	// Metrics describes the experiment's figures (metrics.go); files
	// written before it existed fall back to Legacy (use Specs).
	Metrics []MetricSpec `json:"metrics,omitempty"`
	// DetailOrder is the display order of the configurations' Detail keys
	// (stacks: what, tid, state, wchan, ...), as the experiment knows it;
	// keys it leaves out follow in alphabetical order, as do all of a file
	// written before it existed.
	DetailOrder []string `json:"detail_order,omitempty"`
}

// Runtime records the Go runtime settings of the measured window.
type Runtime struct {
	GOMAXPROCS   int     `json:"gomaxprocs"`
	GCPercent    int     `json:"gc_percent"` // -1 = GC off during measurement
	GCCycles     uint32  `json:"gc_cycles"`  // GC cycles that ran inside measured windows
	LockOSThread bool    `json:"lock_os_thread"`
	SyscallMode  string  `json:"syscall_mode,omitempty"` // "syscall" (scheduler-aware) or "raw"
	AllocsPerOp  float64 `json:"allocs_per_op"`          // heap allocations per measured op
	CgoEnabled   bool    `json:"cgo_enabled"`
	// ThreadParker is the platform's thread parker and how its wait deals
	// with the Go scheduler (e.g. the futex keep-alive; docs/scheduler.md).
	ThreadParker string `json:"thread_parker,omitempty"`
}

// Config is one measured configuration (an implementation at a placement
// and parameters) with its rounds (or repeats).
type Config struct {
	// Key identifies the configuration across files: impl[/placement][/k=v...].
	Key       string            `json:"key"`
	Impl      string            `json:"impl"`
	Kind      string            `json:"kind"` // parkers.Kind, or "c-reference"
	Placement string            `json:"placement,omitempty"`
	Params    map[string]string `json:"params,omitempty"`
	Probe     *Probe            `json:"probe,omitempty"`
	Foreign   *Foreign          `json:"foreign,omitempty"`
	Rounds    []Round           `json:"rounds"`
	// Summary is the median over rounds of each metric.
	Summary map[string]float64 `json:"summary"`
	// Warnings are the configuration's warnings without a code (prose);
	// Coded those with one (Warning: code, figure, configurations), which
	// the renderers group by code into numbered footnotes.
	Warnings []string  `json:"warnings,omitempty"`
	Coded    []Warning `json:"coded_warnings,omitempty"`
	// Detail holds experiment-specific text (stacks: wchan, syscall, ...).
	Detail map[string]string `json:"detail,omitempty"`
	// Modes is set when the configuration's samples fall into more than
	// one regime (E12 latency: rounds that disagree beyond their noise,
	// or a pooled histogram with two peaks): each mode's median and share
	// of the samples, largest share first. ModesWarning says so in one
	// line. A median over rounds of a multimodal configuration is the
	// median of whichever regime most rounds landed in.
	Modes        []Mode `json:"modes,omitempty"`
	ModesWarning string `json:"modes_warning,omitempty"`
}

// IntParam is parameter k as a whole number, 0 when the configuration has
// no such parameter or it is not one. The claims and renderers read back
// the counts their run wrote (n, threads, multiple, wakers) through it.
func (c *Config) IntParam(k string) int {
	n, _ := strconv.Atoi(c.Params[k])
	return n
}

// FloatParam is parameter k as a number, 0 when it is absent or not one.
func (c *Config) FloatParam(k string) float64 {
	f, _ := strconv.ParseFloat(c.Params[k], 64)
	return f
}

// Mode is one regime of a multimodal configuration (stats.Modes).
type Mode = stats.Mode

// Round is one round (latency, selfwake) or repeat (herd).
type Round struct {
	Metrics map[string]float64 `json:"metrics"`
	// Histogram is hdrhistogram-go's Encode (V2 compressed, base64) of the
	// round's samples in nanoseconds; empty when the round has none.
	Histogram string `json:"histogram,omitempty"`
}

// Probe is measured right before a configuration: the floor the figures are
// judged against. Hosts shift, so figures compare only within a probe range.
type Probe struct {
	SpinOneWayNs float64 `json:"spin_one_way_ns"` // pinned spin ping-pong, one-way median
	SyscallNs    float64 `json:"syscall_ns"`      // one getppid-class syscall
	CPUs         [2]int  `json:"cpus"`            // where the spin probe ran
}

// Foreign is CPU used by other processes while a configuration ran.
type Foreign struct {
	// Fraction of all CPU time in the window used by other processes.
	Fraction float64 `json:"fraction"`
	// SameCPUFraction: unpinned runs, fraction of wakes where waker and
	// woken ran on the same CPU; -1 when not measured.
	SameCPUFraction float64 `json:"same_cpu_fraction"`
	// WindowTicks is the window's length in the clock ticks the share is
	// counted in (all CPUs; Linux: USER_HZ, 100 a second per CPU). The
	// share moves in steps of one tick over this, so a window too short
	// to resolve it has Fraction -1 (probe.MinForeignTicks).
	WindowTicks float64 `json:"window_ticks,omitempty"`
}

// Claim is one of the study's claims, evaluated from the numbers just
// measured by the claim kit (internal/claim: Rule and Evaluate).
type Claim struct {
	ID        string `json:"id"`
	Statement string `json:"statement"`
	// Verdict is one of Holds, DoesNotHold, NotEvaluated.
	Verdict  string `json:"verdict"`
	Evidence string `json:"evidence"`
	// Why is the one line, with its figure, that every renderer prints
	// beside the claim's ID: the figure furthest beyond its limit when it
	// does not hold, the figure whose rounds straddle its limit when it
	// holds near it, what it needs when it is not evaluated. Empty for a
	// clear hold.
	Why string `json:"why,omitempty"`
	// Near is set when the verdict was decided within its noise: a
	// figure's rounds lie on both sides of the limit that decided it, or
	// are fewer than it needs (internal/claim says so once), so another
	// run of the same code may decide the other way. Margin names every
	// such figure, with its rounds against its limit.
	Near   bool   `json:"near_limit,omitempty"`
	Margin string `json:"margin,omitempty"`
}

// FindClaim is the claim with id in cs, and whether there is one.
func FindClaim(cs []Claim, id string) (Claim, bool) {
	for _, c := range cs {
		if c.ID == id {
			return c, true
		}
	}
	return Claim{}, false
}

// Claim verdicts.
const (
	Holds        = "holds"
	DoesNotHold  = "does not hold"
	NotEvaluated = "not evaluated"
)

// Metric names shared by experiments, report, compare and plot. Times in ns.
const (
	MMin         = "min_ns"
	MMedian      = "median_ns"
	MP99         = "p99_ns"
	MP999        = "p999_ns"
	MMax         = "max_ns"
	MSamples     = "samples"
	MNoSleep     = "no_sleep_waits"      // waits that returned without sleeping
	MCtxSwSelf   = "ctxsw_self_per_rt"   // RUSAGE_SELF context switches per round trip
	MCtxSwThread = "ctxsw_thread_per_rt" // participants' RUSAGE_THREAD switches per round trip
	MNsPerPair   = "ns_per_pair"         // selfwake
	MFirstNs     = "first_ns"            // herd: notify -> first waiter holds the lock
	MTotalNs     = "total_ns"            // herd: notify -> last release
	MReturn      = "notify_return"       // herd: notify's return value (-1: none)
	MCtxSwProc   = "ctxsw_process"       // herd: RUSAGE_SELF switches in the repeat
	MCtxSwParts  = "ctxsw_participants"  // herd: sum of participants' RUSAGE_THREAD switches
	MUnparked    = "unparked"            // herd lot: UnparkResult counts
	MRequeued    = "requeued"
	MOvershootNs = "overshoot_ns" // timeout: how late past the deadline
)

// Named is a result file with the name it was read from (its path, or
// the name a caller gives it): what report, compare and plot take.
type Named struct {
	Name string
	File *File
}
