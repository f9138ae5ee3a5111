//go:build linux

package stacks

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/procfs"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
)

// stackCase is one mechanism set up and ready to block.
type stackCase struct {
	name, kind, what string
	// onThread: block on a goroutine locked to a new OS thread (false: a
	// plain goroutine, which blocks no thread).
	onThread bool
	block    func() // runs on the blocked goroutine; returns once woken
	wake     func()
	// regions names the objects the thread may sleep on (after it blocked).
	regions func() []procfs.Region
	// wantMatch: keep polling until the sleeping address matches a region.
	wantMatch bool

	// filled in by the run
	tid, goid int
	done      chan struct{}
}

// lotProbe records the parkers the parking lot creates while the stacks
// experiment has it on its probe backend, so the word a lot-parked thread
// sleeps on can be named. The lot's pools are keyed by backend name and
// keep their parkers for good, so the record is global too.
var lotProbe struct {
	mu      sync.Mutex
	parkers []lotProbeParker
	backend map[string]parkers.Backend
}

type lotProbeParker struct {
	p    parkers.ThreadParker
	tid  int    // thread that created it (lot ThreadData are pooled and may move)
	role string // "ThreadData" or "bucket WordLock node", from the caller
}

// lotProbeBackend wraps inner's constructor: the lot's parkers are inner's
// own (the sleeping frames are unchanged), only their creation is noted.
func lotProbeBackend(inner parkers.Backend) parkers.Backend {
	lotProbe.mu.Lock()
	defer lotProbe.mu.Unlock()
	if lotProbe.backend == nil {
		lotProbe.backend = map[string]parkers.Backend{}
	}
	if b, ok := lotProbe.backend[inner.Name]; ok {
		return b
	}
	b := inner
	b.Name = "stacks-probe-" + inner.Name
	b.NewThread = func() parkers.ThreadParker {
		p := inner.NewThread()
		role := "ThreadData"
		var pcs [4]uintptr
		frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
		for {
			f, more := frames.Next()
			if strings.Contains(f.Function, "WLNode") || strings.Contains(f.Function, "wordLock") {
				role = "bucket WordLock node"
				break
			}
			if !more {
				break
			}
		}
		lotProbe.mu.Lock()
		lotProbe.parkers = append(lotProbe.parkers, lotProbeParker{p, osthread.Tid(), role})
		lotProbe.mu.Unlock()
		return p
	}
	lotProbe.backend[inner.Name] = b
	return b
}

func lotProbeRegions(backendName string) []procfs.Region {
	lotProbe.mu.Lock()
	defer lotProbe.mu.Unlock()
	var out []procfs.Region
	for i, pp := range lotProbe.parkers {
		out = append(out, objectRegions(fmt.Sprintf("lot %s parker #%d (%s, created on tid %d)", pp.role, i+1, backendName, pp.tid), pp.p)...)
	}
	return out
}

// timedWaitFor is how far away the timed variants' deadline is.
const timedWaitFor = time.Hour

// parkerCase blocks in a parkers backend's own park: a ThreadParker's Park
// (timed: ParkUntil an hour away), or a TokenParker's (timed: ParkDeadline
// an hour away, repeated until the wake, since a token parker may return
// spuriously).
func parkerCase(m mechanism) (*stackCase, error) {
	b, err := parkers.Lookup(m.parker)
	if err != nil {
		return nil, err
	}
	c := &stackCase{name: m.Name, kind: string(b.Kind), what: m.Summary, onThread: true, wantMatch: true}
	var p any
	switch {
	case m.token && b.NewToken != nil:
		tp := b.NewToken()
		var woken atomic.Bool
		c.block, c.wake, p = tp.Park, func() { woken.Store(true); tp.Unpark() }, tp
		if m.timed {
			c.block = func() {
				for !woken.Load() {
					tp.ParkDeadline(time.Now().Add(timedWaitFor))
				}
			}
		}
	case !m.token && b.NewThread != nil:
		tp := b.NewThread()
		c.block, c.wake, p = func() { tp.PreparePark(); tp.Park() }, func() { tp.UnparkLock().Unpark() }, tp
		if m.timed {
			c.block = func() {
				tp.PreparePark()
				for !tp.ParkUntil(time.Now().Add(timedWaitFor)) && tp.TimedOut() {
				}
			}
		}
	default:
		return nil, fmt.Errorf("parker %q has no %s parker", m.parker, map[bool]string{true: "token", false: "thread"}[m.token])
	}
	c.regions = func() []procfs.Region { return objectRegions(m.parker+" parker", p) }
	return c, nil
}

// newStackCase sets one mechanism up. lotBackend is the lot's (probe)
// backend name for labels.
func newStackCase(m mechanism, lotBackend string) (*stackCase, error) {
	name := m.Name
	if m.parker != "" {
		return parkerCase(m)
	}
	switch name {
	case StackLotMutex:
		m := new(lot.Mutex)
		m.Lock() // held by the experiment until wake
		return &stackCase{
			name: name, kind: "lot", what: whatOf(StackLotMutex), onThread: true, wantMatch: true,
			// Lock blocks (the experiment holds m) until wake; the Unlock
			// only lets the next case's teardown find m free.
			//lint:ignore SA2001 the Lock is the measured block, not a barrier
			block: func() { m.Lock(); m.Unlock() },
			wake:  m.Unlock,
			regions: func() []procfs.Region {
				r := objectRegions("the lot.Mutex itself (only the parking key; nobody sleeps on it)", m)
				return append(r, lotProbeRegions(lotBackend)...)
			},
		}, nil
	case StackLotCondvar:
		m := new(lot.Mutex)
		cv := new(lot.Condvar)
		ready := false
		return &stackCase{
			name: name, kind: "lot", what: whatOf(StackLotCondvar), onThread: true, wantMatch: true,
			block: func() {
				m.Lock()
				for !ready {
					cv.Wait(m)
				}
				m.Unlock()
			},
			wake: func() { m.Lock(); ready = true; cv.NotifyAll(); m.Unlock() },
			regions: func() []procfs.Region {
				r := objectRegions("the lot.Condvar itself (the parking key)", cv)
				r = append(r, objectRegions("the condvar's lot.Mutex", m)...)
				return append(r, lotProbeRegions(lotBackend)...)
			},
		}, nil
	case StackSyncMutex, StackSyncMutexLocked:
		mu := new(sync.Mutex)
		mu.Lock()
		c := &stackCase{
			name: name, kind: "goroutine", what: whatOf(name),
			block:   func() { syncLock(mu) },
			wake:    mu.Unlock,
			regions: func() []procfs.Region { return objectRegions("the sync.Mutex", mu) },
		}
		if name == StackSyncMutexLocked {
			c.kind = "goroutine-locked"
			c.onThread = true
		}
		return c, nil
	case StackChan:
		ch := make(chan struct{})
		return &stackCase{
			name: name, kind: "goroutine", what: whatOf(StackChan),
			block:   func() { chanRecv(ch) },
			wake:    func() { close(ch) },
			regions: func() []procfs.Region { return nil },
		}, nil
	}
	return nil, driver.Bad("Mechanisms", "unknown mechanism %q; valid names: all, %s", name, strings.Join(ImplNames(), ", "))
}

// available: stacks runs on Linux.
func available() error { return nil }

func (p *stacksPlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o, mechs := p.o, p.Items
	var names []string
	for _, m := range mechs {
		names = append(names, m.Name)
	}
	exp := &results.Experiment{
		Name:        "stacks",
		DetailOrder: DetailKeys,
		Options:     driver.Echo(o),
	}
	exp.Options["mechanisms"] = strings.Join(names, ",")
	if driver.Interrupted(ctx) {
		return nil, ctx.Err()
	}

	// The lot runs on a probe wrapper of its current backend for the
	// duration, so the words its threads sleep on can be named.
	prevLot := lot.CurrentBackend()
	probe := lotProbeBackend(prevLot)
	if err := lot.SetBackend(probe); err != nil {
		return nil, fmt.Errorf("stacks: %w", err)
	}
	defer func() { _ = lot.SetBackend(prevLot) }()

	var cases []*stackCase
	for _, m := range mechs {
		n := m.Name
		c, err := newStackCase(m, prevLot.Name)
		if err != nil {
			if _, ok := err.(*driver.OptionError); ok {
				return nil, err
			}
			exp.Warnings = append(exp.Warnings, fmt.Sprintf("%s skipped: %v", n, err))
			continue
		}
		cases = append(cases, c)
	}

	// No participant needs a P (they sleep in the kernel or the scheduler):
	// GOMAXPROCS stays the machine default; the GC is kept off so no GC
	// worker shows up mid-sample.
	env := runenv.Enter(0)
	defer env.Restore()

	// The coordinator stays on one thread so it can name itself among the
	// process's threads.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self := osthread.Tid()

	// Block them all.
	for _, c := range cases {
		c.done = make(chan struct{})
		started := make(chan [2]int, 1)
		run := func() {
			tid := -1
			if c.onThread {
				tid = osthread.Tid()
			}
			started <- [2]int{tid, currentGoid()}
			blockIn(c.block)
			close(c.done)
		}
		if c.onThread {
			osthread.Go(run)
		} else {
			go run()
		}
		ids := <-started
		c.tid, c.goid = ids[0], ids[1]
	}
	// Whatever happens next, wake everyone and join.
	woken := false
	wakeAll := func() error {
		if woken {
			return nil
		}
		woken = true
		for _, c := range cases {
			c.wake()
		}
		timeout := time.After(10 * time.Second)
		for _, c := range cases {
			select {
			case <-c.done:
			case <-timeout:
				return fmt.Errorf("stacks: %s did not return within 10 s of its wake", c.name)
			}
		}
		return nil
	}
	defer func() { _ = wakeAll() }()

	// Wait until each is really asleep.
	settled, dump := settle(ctx, cases, o.SettleTimeout)
	if driver.Interrupted(ctx) {
		return nil, ctx.Err()
	}
	// Sample.
	maps, mapsErr := procfs.Maps()
	if mapsErr != nil {
		exp.Warnings = append(exp.Warnings, "cannot read /proc/self/maps: "+mapsErr.Error())
	}
	syms, _ := procfs.SelfSymbols(maps) // nil (no names) for a stripped binary
	gs := parseGoroutines(dump)
	known := map[int]bool{self: true}
	for _, c := range cases {
		cfg := sampleCase(c, gs, maps, syms, o.GoFrames, prevLot.Name)
		if !settled[c] {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("not seen asleep within %v; sampled anyway", o.SettleTimeout))
		}
		if c.tid > 0 {
			known[c.tid] = true
		}
		cfg.Warnings = append(cfg.Warnings, notMeasured(cfg.Detail)...)
		exp.Configs = append(exp.Configs, cfg)
	}
	exp.Configs = append(exp.Configs, runtimeThreads(known, self, gs, maps, syms))
	threadsSummary := exp.Configs[len(exp.Configs)-1].Detail["summary"]
	for _, cfg := range exp.Configs {
		if cfg.Kind == "goroutine" {
			cfg.Detail["threads"] = "none blocked for it; the runtime's threads meanwhile: " + threadsSummary
		}
	}

	if err := wakeAll(); err != nil {
		return nil, err
	}
	exp.Runtime = env.Runtime()
	exp.Runtime.SyscallMode = "syscall"
	exp.Claims = Claims(exp.Configs)
	exp.Notes = notesFor(exp.Configs)
	return exp, nil
}

// settle polls until every case is asleep: a thread in state S inside a
// system call, the same call and address twice in a row (and, where its
// objects are known, on one of them); a goroutine parked with a wait reason.
// It returns which settled and the goroutine dump of the last poll.
func settle(ctx context.Context, cases []*stackCase, timeout time.Duration) (map[*stackCase]bool, string) {
	deadline := time.Now().Add(timeout)
	prev := map[*stackCase][2]uint64{}
	stable := map[*stackCase]int{}
	for {
		dump := allGoroutines()
		gs := parseGoroutines(dump)
		ok := map[*stackCase]bool{}
		all := true
		for _, c := range cases {
			g, found := gs[c.goid]
			parked := found && !strings.HasPrefix(g.wait, "running") && !strings.HasPrefix(g.wait, "runnable")
			if !c.onThread {
				ok[c] = parked && !strings.HasPrefix(g.wait, "syscall")
			} else if t, err := procfs.Read(c.tid); err == nil && parked && t.Stat.State == 'S' && t.SyscallErr == nil && t.Syscall.InSyscall {
				cur := [2]uint64{uint64(t.Syscall.Nr), t.Syscall.Args[0]}
				if prev[c] == cur {
					stable[c]++
				} else {
					stable[c] = 0
				}
				prev[c] = cur
				matched := true
				if c.wantMatch {
					_, matched = procfs.Match(c.regions(), t.Syscall.Args[0])
				}
				ok[c] = stable[c] >= 2 && matched
			}
			all = all && ok[c]
		}
		if all || time.Now().After(deadline) || ctx.Err() != nil {
			return ok, dump
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func sampleCase(c *stackCase, gs map[int]goroutineDump, maps []procfs.Mapping, syms *procfs.Symbols, goFrames int, lotBackend string) *results.Config {
	d := map[string]string{"what": c.what}
	cfg := &results.Config{Key: c.name, Impl: c.name, Kind: c.kind, Detail: d, Summary: map[string]float64{}}
	if c.kind == "lot" {
		cfg.Params = map[string]string{"lot_parker": lotBackend}
	}
	if g, ok := gs[c.goid]; ok {
		d["goroutine"] = fmt.Sprint(c.goid)
		d["goroutine_wait"] = g.wait
		d["go_stack"] = strings.Join(topFrames(g, goFrames), "\n")
	} else {
		d["goroutine"] = fmt.Sprintf("%d (not found in the dump)", c.goid)
	}
	if !c.onThread {
		d["tid"] = "none (the goroutine is parked by the Go scheduler; no OS thread is blocked on it)"
		return cfg
	}
	d["tid"] = fmt.Sprint(c.tid)
	t, err := procfs.Read(c.tid)
	if err != nil {
		d["state"] = "unreadable: " + err.Error()
		return cfg
	}
	describeTask(d, t, c.regions(), maps, syms)
	return cfg
}

// describeTask fills the kernel-side Detail keys from one /proc sample.
func describeTask(d map[string]string, t procfs.Task, regions []procfs.Region, maps []procfs.Mapping, syms *procfs.Symbols) {
	if t.StatErr != nil {
		d["state"] = "unreadable: " + t.StatErr.Error()
	} else {
		d["state"] = fmt.Sprintf("%c (%s)", t.Stat.State, procfs.StateName(t.Stat.State))
	}
	switch {
	case t.WchanErr != nil:
		d["wchan"] = "not readable: " + t.WchanErr.Error()
	case t.Wchan == "" || t.Wchan == "0":
		d["wchan"] = "0 (running, or hidden by the kernel)"
	default:
		d["wchan"] = t.Wchan
	}
	if t.SyscallErr != nil {
		d["syscall"] = "not readable: " + t.SyscallErr.Error()
	} else {
		sc := t.Syscall
		d["syscall"] = formatSyscall(procfs.Arch, sc)
		if sc.InSyscall && procfs.IsFutex(procfs.Arch, sc.Nr) {
			d["futex_op"] = procfs.FutexOp(sc.Args[1])
			d["futex_addr"] = fmt.Sprintf("0x%x", sc.Args[0])
			d["futex_val"] = fmt.Sprint(int32(sc.Args[2]))
			d["futex_timeout"] = futexTimeout(sc.Args[1], sc.Args[3], readTimespec(sc.Args[3]), monoNow(), time.Duration(time.Now().UnixNano()))
			if m, ok := procfs.Match(regions, sc.Args[0]); ok {
				d["matches"] = m
			} else if len(regions) > 0 {
				d["matches"] = "none of this mechanism's objects (" + regionNames(regions) + ")"
			} else {
				d["matches"] = "no known object"
			}
			d["memory"] = describeAddr(sc.Args[0], maps, syms)
		}
	}
	if t.StackErr != nil {
		d["kernel_stack"] = "not readable (" + t.StackErr.Error() + "; needs root or CAP_SYS_ADMIN)"
	} else {
		var fs []string
		for _, f := range t.Stack {
			fs = append(fs, procfs.StackFunc(f))
		}
		d["kernel_stack"] = strings.Join(fs, "\n")
	}
}

// regionNames lists the objects of regions (not their fields), for
// "matches none of ...", with their addresses.
func regionNames(regions []procfs.Region) string {
	var names []string
	for _, r := range rootRegions(regions) {
		if len(names) == 4 {
			names = append(names, "...")
			break
		}
		names = append(names, fmt.Sprintf("%s at 0x%x", r.Label, r.Addr))
	}
	return strings.Join(names, "; ")
}

// describeAddr names the memory an address lies in: a data symbol of this
// binary, else the mapping.
func describeAddr(addr uint64, maps []procfs.Mapping, syms *procfs.Symbols) string {
	if name, ok := syms.Lookup(addr); ok {
		return "static data of this binary: " + name
	}
	if mp, ok := procfs.FindMapping(maps, addr); ok {
		return mp.Describe()
	}
	return "not in any mapping"
}

// runtimeThreads describes every thread of the process that is not one of
// the blocked ones: the Go runtime's Ms.
func runtimeThreads(known map[int]bool, self int, gs map[int]goroutineDump, maps []procfs.Mapping, syms *procfs.Symbols) *results.Config {
	d := map[string]string{"what": "the process's other threads: the Go runtime's Ms (and this experiment's own)"}
	cfg := &results.Config{Key: StackGoRuntime, Impl: StackGoRuntime, Kind: "runtime", Detail: d, Summary: map[string]float64{}}
	tids, err := procfs.Tasks()
	if err != nil {
		d["threads"] = "not readable: " + err.Error()
		return cfg
	}
	slices.Sort(tids)
	var lines []string
	counts := map[string]int{}
	var order []string
	for _, tid := range tids {
		if known[tid] && tid != self {
			continue
		}
		t, err := procfs.Read(tid)
		if err != nil {
			continue // exited meanwhile
		}
		role := "running"
		desc := fmt.Sprintf("tid %d %c", tid, t.Stat.State)
		if tid == self {
			role = "this experiment's thread (reading /proc)"
		} else if t.SyscallErr == nil && t.Syscall.InSyscall {
			name := procfs.SyscallName(procfs.Arch, t.Syscall.Nr)
			sym, _ := syms.Lookup(t.Syscall.Args[0])
			switch {
			case name == "futex" && strings.HasPrefix(sym, "runtime.m0"):
				role = "futex on runtime.m0's park note (the main M, idle)"
			case name == "futex" && strings.HasPrefix(sym, "runtime.sig"):
				role = "futex on runtime.sig's note (the os/signal receiver)"
			case name == "futex" && strings.HasPrefix(sym, "runtime.newmHandoff"):
				role = "futex on runtime.newmHandoff.wake (the template thread)"
			case name == "futex" && strings.HasPrefix(sym, "runtime.sched"):
				role = "futex on runtime.sched (sysmon asleep on sysmonnote)"
			case name == "futex" && t.Syscall.Args[3] == 0:
				role = "futex, no timeout, on a heap-allocated runtime m's park note (an idle M)"
			case name == "futex":
				role = "futex with a timeout (sysmon asleep on sched.sysmonnote, or a timed note)"
			case name == "nanosleep":
				role = "nanosleep (sysmon's usleep)"
			case name == "epoll_pwait" || name == "epoll_wait" || name == "epoll_pwait2":
				role = "epoll_pwait (the netpoller)"
			default:
				role = name
			}
			desc += " " + formatSyscall(procfs.Arch, t.Syscall)
			if procfs.IsFutex(procfs.Arch, t.Syscall.Nr) {
				desc += " on " + describeAddr(t.Syscall.Args[0], maps, syms)
			}
		}
		if t.WchanErr == nil && t.Wchan != "" && t.Wchan != "0" {
			desc += " wchan " + t.Wchan
		}
		lines = append(lines, desc)
		if counts[role] == 0 {
			order = append(order, role)
		}
		counts[role]++
	}
	var sum []string
	for _, r := range order {
		sum = append(sum, fmt.Sprintf("%d %s", counts[r], r))
	}
	waits := map[string]int{}
	for _, g := range gs {
		waits[g.wait]++
	}
	var ws []string
	for w, n := range waits {
		ws = append(ws, fmt.Sprintf("%d [%s]", n, w))
	}
	slices.Sort(ws)
	d["summary"] = fmt.Sprintf("%d threads: %s", len(lines), strings.Join(sum, ", "))
	d["threads"] = strings.Join(lines, "\n")
	d["goroutines"] = strings.Join(ws, ", ")
	return cfg
}

// chanRecv and syncLock give the goroutine-level waits a named
// frame (the runtime's own frames are hidden in goroutine dumps unless
// GOTRACEBACK=system).
//
//go:noinline
func chanRecv(ch chan struct{}) { <-ch }

// syncLock blocks in sync.Mutex.Lock (the experiment holds mu until wake);
// the Unlock releases it at once for the teardown.
//
//go:noinline
func syncLock(mu *sync.Mutex) {
	mu.Lock()
	//lint:ignore SA2001 the Lock is the measured block, not a barrier
	mu.Unlock()
}

// readTimespec reads a struct timespec (64-bit: tv_sec, tv_nsec) from this
// process's memory through /proc/self/mem, which fails cleanly on a bad
// address instead of faulting. nil when addr is 0 or unreadable.
func readTimespec(addr uint64) *[2]int64 {
	if addr == 0 || unsafe.Sizeof(uintptr(0)) != 8 {
		return nil
	}
	b, err := procfs.ReadMem(addr, 16)
	if err != nil || len(b) != 16 {
		return nil
	}
	return &[2]int64{int64(binary.LittleEndian.Uint64(b[:8])), int64(binary.LittleEndian.Uint64(b[8:]))}
}

// monoNow is CLOCK_MONOTONIC now, the clock of absolute futex deadlines.
func monoNow() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// notMeasured lists, one warning each, the figures of a sampled thread
// that could not be read, with the reason: they are not measured, and no
// claim is evaluated from them.
func notMeasured(d map[string]string) []string {
	var out []string
	for _, k := range []string{"state", "wchan", "syscall", "kernel_stack", "threads"} {
		if v := d[k]; unreadable(v) {
			out = append(out, k+" not measured: "+v)
		}
	}
	return out
}
