package stacks

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/procfs"
	"github.com/parkbench/parkbench/internal/results"
)

// Detail keys of a stacks configuration, in display order.
var DetailKeys = []string{
	"what", "tid", "state", "wchan", "syscall", "futex_op", "futex_addr", "futex_val", "futex_timeout",
	"matches", "memory", "kernel_stack", "goroutine", "goroutine_wait", "go_stack", "threads",
}

// Options configures Run.
type Options struct {
	// Mechanisms to block; empty or "all" means every one available.
	Mechanisms []string
	// SettleTimeout bounds the wait for all blocked threads to be asleep.
	SettleTimeout time.Duration
	// GoFrames is how many Go frames to keep per goroutine.
	GoFrames int
}

// DefaultOptions blocks every mechanism.
func DefaultOptions() Options {
	return Options{Mechanisms: []string{"all"}, SettleTimeout: 5 * time.Second, GoFrames: 10}
}

// Stacks mechanism names, in display order.
const (
	StackLotMutex        = "lot-mutex"
	StackLotCondvar      = "lot-condvar"
	StackFutex           = "futex"
	StackPthread         = "pthread"
	StackStd             = "std"
	StackCrossbeam       = "crossbeam"
	StackSyncMutex       = "sync-mutex"
	StackSyncMutexLocked = "sync-mutex-locked"
	StackChan            = "chan"
	// The timed variants park with a deadline an hour away, to show the
	// timeout argument each passes to the kernel.
	StackFutexTimed            = "futex-timed"
	StackPthreadTimed          = "pthread-timed"
	StackPthreadWallclockTimed = "pthread-wallclock-timed"
	StackStdTimed              = "std-timed"
	// StackGoRuntime is the extra configuration listing the runtime's own
	// threads (the Ms), not a mechanism one can select.
	StackGoRuntime = "go-runtime"
)

// mechanisms are the selectable mechanisms in display order: kind (as
// the configuration records it) and what a blocked thread of it is.
var mechanisms = []driver.ImplInfo{
	{Name: StackLotMutex, Kind: "lot", Summary: "a thread blocked in lot.Mutex.Lock on a mutex the experiment holds"},
	{Name: StackLotCondvar, Kind: "lot", Summary: "a thread in lot.Condvar.Wait (its mutex released while it waits)"},
	{Name: StackFutex, Kind: "thread", Summary: "a thread in the futex ThreadParker's Park"},
	{Name: StackPthread, Kind: "thread", Summary: "a thread in the pthread ThreadParker's Park (pthread_cond_wait through cgo)"},
	{Name: StackStd, Kind: "token", Summary: "a thread in Rust std's thread::park (token parker)"},
	{Name: StackCrossbeam, Kind: "token", Summary: "a thread in crossbeam's Parker::park (token parker)"},
	{Name: StackFutexTimed, Kind: "thread", Summary: "a thread in the futex ThreadParker's ParkUntil, deadline in 1 h"},
	{Name: StackPthreadTimed, Kind: "thread", Summary: "a thread in the pthread ThreadParker's ParkUntil (pthread_cond_timedwait), deadline in 1 h"},
	{Name: StackPthreadWallclockTimed, Kind: "thread", Summary: "a thread in pthread-wallclock's ParkUntil (gettimeofday-based absolute deadline), deadline in 1 h"},
	{Name: StackStdTimed, Kind: "token", Summary: "a thread in Rust std's park_timeout, deadline in 1 h"},
	{Name: StackSyncMutex, Kind: "goroutine", Summary: "a goroutine blocked in sync.Mutex.Lock"},
	{Name: StackSyncMutexLocked, Kind: "goroutine-locked", Summary: "a goroutine locked to its OS thread (runtime.LockOSThread) blocked in sync.Mutex.Lock"},
	{Name: StackChan, Kind: "goroutine", Summary: "a goroutine in a channel receive"},
}

// ImplNames lists the selectable mechanisms.
func ImplNames() []string {
	var names []string
	for _, m := range mechanisms {
		names = append(names, m.Name)
	}
	return names
}

// Impls describes every selectable mechanism; off Linux, Why says why
// none runs here.
func Impls() []driver.ImplInfo {
	out := slices.Clone(mechanisms)
	if err := available(); err != nil {
		for i := range out {
			out[i].Why = err.Error()
		}
	}
	return out
}

// whatOf is the description of mechanism name.
func whatOf(name string) string {
	for _, m := range mechanisms {
		if m.Name == name {
			return m.Summary
		}
	}
	return name
}

// Limits of the stacks options.
const (
	MaxSettleTimeout = time.Minute
	MaxGoFrames      = 100
)

// Validate checks the mechanism names, the limits, and that stacks runs
// here.
func (o Options) Validate() error {
	if _, err := resolveStackNames(o.Mechanisms); err != nil {
		return err
	}
	if o.SettleTimeout <= 0 || o.SettleTimeout > MaxSettleTimeout {
		return driver.Bad("SettleTimeout", "invalid settle timeout %v: must be > 0 and at most %v", o.SettleTimeout, MaxSettleTimeout)
	}
	if err := driver.CheckCount("GoFrames", "go frames", o.GoFrames, 1, MaxGoFrames); err != nil {
		return err
	}
	return available()
}

// resolveStackNames checks --mech.
func resolveStackNames(names []string) ([]string, error) {
	all := ImplNames()
	if len(names) == 0 || (len(names) == 1 && names[0] == "all") {
		return all, nil
	}
	var out []string
	for _, n := range names {
		if !slices.Contains(all, n) {
			return nil, driver.Bad("Mechanisms", "unknown mechanism %q; valid names: all, %s", n, strings.Join(all, ", "))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// goroutineDump is one goroutine of a runtime.Stack(all) dump.
type goroutineDump struct {
	id     int
	wait   string   // the bracketed status: "syscall, locked to thread", "sync.Mutex.Lock", "chan receive"
	frames []string // function names, innermost first
}

// parseGoroutines splits a runtime.Stack(buf, true) dump into goroutines.
func parseGoroutines(dump string) map[int]goroutineDump {
	out := map[int]goroutineDump{}
	for _, block := range strings.Split(dump, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		hdr := lines[0]
		f := strings.Fields(hdr)
		if len(f) < 2 {
			continue
		}
		id, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		g := goroutineDump{id: id}
		if i, j := strings.IndexByte(hdr, '['), strings.LastIndexByte(hdr, ']'); i >= 0 && j > i {
			g.wait = hdr[i+1 : j]
		}
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "\t") || l == "" {
				continue
			}
			if strings.HasPrefix(l, "created by ") {
				break
			}
			g.frames = append(g.frames, frameFunc(l))
		}
		out[id] = g
	}
	return out
}

// frameFunc strips the argument list from a traceback line:
// "pkg.(*T).m(0xc000010000, {0x0, 0x0})" -> "pkg.(*T).m".
func frameFunc(line string) string {
	line = strings.TrimSpace(line)
	if strings.HasSuffix(line, ")") {
		if i := strings.LastIndexByte(line, '('); i > 0 {
			return line[:i]
		}
	}
	return line
}

// marker is the full name of the function every blocked goroutine calls
// its mechanism from (blockIn); frames from it down are not shown. It is
// read from the function itself, so that a move or a rename of the package
// cannot leave a stale literal behind.
var marker = runtime.FuncForPC(reflect.ValueOf(blockIn).Pointer()).Name()

// internalPrefix is this module's "<module>/internal/" import path prefix,
// derived from marker (".../internal/experiments/stacks.blockIn").
var internalPrefix = marker[:strings.Index(marker, "/internal/")+len("/internal/")]

// shortFunc drops this module's import path prefix for display.
func shortFunc(f string) string {
	return strings.TrimPrefix(f, internalPrefix)
}

// topFrames returns a goroutine's frames above the marker (at most n).
func topFrames(g goroutineDump, n int) []string {
	var out []string
	for _, f := range g.frames {
		if f == marker {
			break
		}
		out = append(out, shortFunc(f))
		if len(out) == n {
			break
		}
	}
	return out
}

// blockIn runs a mechanism's blocking call; its name marks where the
// interesting frames end in a goroutine dump.
//
//go:noinline
func blockIn(block func()) { block() }

// currentGoid reads the calling goroutine's id from its own traceback.
func currentGoid() int {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	f := strings.Fields(string(buf[:n]))
	if len(f) >= 2 && f[0] == "goroutine" {
		if id, err := strconv.Atoi(f[1]); err == nil {
			return id
		}
	}
	return -1
}

// allGoroutines returns the whole goroutine dump (growing the buffer until
// it fits).
func allGoroutines() string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// objectRegions lists the memory of obj (a pointer) and of what it points
// to, field by field, labelled in Go syntax, so the address a thread sleeps
// on can be named: "futex parker.state", "(*pthread parker.c).c (+40)",
// "(*crossbeam parker.unparker.inner).cvar". It follows pointers and
// interfaces a few levels; sync/atomic values are leaves. The first region
// is obj itself.
func objectRegions(label string, obj any) []procfs.Region {
	v := reflect.ValueOf(obj)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	var out []procfs.Region
	seen := map[uintptr]bool{v.Pointer(): true}
	var walk func(label string, v reflect.Value, depth int)
	follow := func(label string, p reflect.Value, depth int) {
		if p.Kind() == reflect.Interface {
			if p.IsNil() {
				return
			}
			p = p.Elem()
		}
		if p.Kind() != reflect.Pointer || p.IsNil() || p.Type().Elem().Size() == 0 || seen[p.Pointer()] {
			return
		}
		seen[p.Pointer()] = true
		walk("(*"+label+")", p.Elem(), depth+1)
	}
	walk = func(label string, v reflect.Value, depth int) {
		if !v.CanAddr() {
			return
		}
		out = append(out, procfs.Region{Label: label, Addr: uint64(v.UnsafeAddr()), Size: uint64(v.Type().Size())})
		if depth > 4 || v.Kind() != reflect.Struct || v.Type().PkgPath() == "sync/atomic" {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			name := label + "." + v.Type().Field(i).Name
			fv := v.Field(i)
			switch fv.Kind() {
			case reflect.Pointer, reflect.Interface:
				out = append(out, procfs.Region{Label: name, Addr: uint64(fv.UnsafeAddr()), Size: uint64(fv.Type().Size())})
				follow(name, fv, depth)
			default:
				walk(name, fv, depth+1)
			}
		}
	}
	walk(label, v.Elem(), 0)
	return out
}

// rootRegions returns the regions no other region contains: the objects
// themselves rather than their fields.
func rootRegions(regions []procfs.Region) []procfs.Region {
	var out []procfs.Region
	for i, r := range regions {
		inside := false
		for j, s := range regions {
			if i != j && s.Addr <= r.Addr && r.Addr+r.Size <= s.Addr+s.Size && (s.Size > r.Size || j < i) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, r)
		}
	}
	return out
}

// formatSyscall renders a decoded /proc syscall strace-style.
func formatSyscall(arch string, sc procfs.Syscall) string {
	switch {
	case sc.Running:
		return "none (running)"
	case !sc.InSyscall:
		return fmt.Sprintf("none (blocked outside a system call, pc 0x%x)", sc.PC)
	}
	name := procfs.SyscallName(arch, sc.Nr)
	a := sc.Args
	ptr := func(v uint64) string {
		if v == 0 {
			return "NULL"
		}
		return fmt.Sprintf("0x%x", v)
	}
	switch name {
	case "futex":
		op := procfs.FutexOp(a[1])
		switch procfs.FutexCmd(a[1]) {
		case procfs.FutexWait:
			return fmt.Sprintf("futex(0x%x, %s, %d, %s)", a[0], op, int32(a[2]), ptr(a[3]))
		case procfs.FutexWaitBitset:
			mask := fmt.Sprintf("0x%x", uint32(a[5]))
			if uint32(a[5]) == 0xffffffff {
				mask = "FUTEX_BITSET_MATCH_ANY"
			}
			return fmt.Sprintf("futex(0x%x, %s, %d, %s, NULL, %s)", a[0], op, int32(a[2]), ptr(a[3]), mask)
		}
		return fmt.Sprintf("futex(0x%x, %s, %d, %s, %s, %d)", a[0], op, int32(a[2]), ptr(a[3]), ptr(a[4]), a[5])
	case "epoll_pwait", "epoll_wait":
		return fmt.Sprintf("%s(%d, 0x%x, %d, %d)", name, int32(a[0]), a[1], int32(a[2]), int32(a[3]))
	case "nanosleep":
		return fmt.Sprintf("nanosleep(%s, %s)", ptr(a[0]), ptr(a[1]))
	case "read", "write":
		return fmt.Sprintf("%s(%d, 0x%x, %d)", name, int32(a[0]), a[1], a[2])
	}
	return fmt.Sprintf("%s(0x%x, 0x%x, 0x%x, 0x%x, 0x%x, 0x%x)", name, a[0], a[1], a[2], a[3], a[4], a[5])
}

// futexTimeout says what a futex wait's timeout argument means. ts is the
// timespec read from the waiter's memory (nil when unreadable); monoNow and
// wallNow are the clocks now, for "in X".
func futexTimeout(op, addr uint64, ts *[2]int64, monoNow, wallNow time.Duration) string {
	if addr == 0 {
		return "none (sleeps until woken)"
	}
	val := func(now time.Duration, abs bool) string {
		if ts == nil {
			return ""
		}
		d := time.Duration(ts[0])*time.Second + time.Duration(ts[1])
		if !abs {
			return fmt.Sprintf(": %v", d)
		}
		return fmt.Sprintf(": %d.%09d s, due in %v", ts[0], ts[1], (d - now).Round(time.Millisecond))
	}
	switch procfs.FutexCmd(op) {
	case procfs.FutexWait:
		return fmt.Sprintf("relative timespec at 0x%x%s", addr, val(0, false))
	case procfs.FutexWaitBitset:
		if op&procfs.FutexClockRealtime != 0 {
			return fmt.Sprintf("absolute CLOCK_REALTIME deadline at 0x%x%s (moves with wall-clock steps)", addr, val(wallNow, true))
		}
		return fmt.Sprintf("absolute CLOCK_MONOTONIC deadline at 0x%x%s", addr, val(monoNow, true))
	}
	return fmt.Sprintf("0x%x", addr)
}

// Claim IDs of the stacks experiment.
const (
	ClaimSameStackTop   = "stacks-same-top-several-meanings"
	ClaimGoroutineLevel = "stacks-goroutine-level-blocks-no-thread"
)

// Claims evaluates the experiment's claims from its configurations
// (pure: it reads Kind and Detail only).
func Claims(cfgs []*results.Config) []results.Claim {
	return []results.Claim{claimSameTop(cfgs), claimGoroutineLevel(cfgs)}
}

// unreadable says whether a Detail figure could not be read (for example
// /proc/TID/stack without root, /proc/TID/syscall under a ptrace policy).
func unreadable(v string) bool {
	return strings.HasPrefix(v, "not readable") || strings.HasPrefix(v, "unreadable")
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

func claimSameTop(cfgs []*results.Config) results.Claim {
	c := results.Claim{ID: ClaimSameStackTop, Statement: "the same stack top can mean several things: several mechanisms sleep with the same wait channel in the same system call, " +
		"and the futex address, the futex op or the Go stack tells each apart"}
	type top struct{ wchan, sys string }
	groups := map[top][]*results.Config{}
	var order []top
	var notRead []string
	for _, cf := range cfgs {
		d := cf.Detail
		if d == nil || cf.Kind == "goroutine" || cf.Impl == StackGoRuntime {
			continue
		}
		if unreadable(d["state"]) || unreadable(d["wchan"]) || unreadable(d["syscall"]) {
			// Not measured: it joins no group (all "not readable"
			// threads would otherwise look like one shared top).
			notRead = append(notRead, cf.Impl)
			continue
		}
		if d["wchan"] == "" || !strings.HasPrefix(d["state"], "S") {
			continue
		}
		sys := d["syscall"]
		if i := strings.IndexByte(sys, '('); i > 0 {
			sys = sys[:i]
		}
		k := top{d["wchan"], sys}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], cf)
	}
	var shared []string
	var clash []string
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		var names []string
		for _, cf := range g {
			names = append(names, cf.Impl)
		}
		shared = append(shared, fmt.Sprintf("%s in %s: %s", k.wchan, k.sys, strings.Join(names, ", ")))
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				a, b := g[i].Detail, g[j].Detail
				if a["futex_addr"] == b["futex_addr"] && a["futex_op"] == b["futex_op"] && firstLine(a["go_stack"]) == firstLine(b["go_stack"]) && a["matches"] == b["matches"] {
					clash = append(clash, g[i].Impl+" = "+g[j].Impl)
				}
			}
		}
	}
	switch {
	case len(shared) == 0 && len(notRead) > 0:
		c.Verdict = results.NotEvaluated
		c.Evidence = fmt.Sprintf("the wait channel or system call of %d threads (%s) could not be read (run as root, or allow ptrace)", len(notRead), strings.Join(notRead, ", "))
	case len(shared) == 0:
		c.Verdict = results.NotEvaluated
		c.Evidence = "fewer than two sleeping thread-level mechanisms share a wait channel and system call in this run"
	case len(clash) > 0:
		c.Verdict = results.DoesNotHold
		c.Evidence = "shared tops: " + strings.Join(shared, "; ") + "; indistinguishable by address, op and Go stack: " + strings.Join(clash, ", ")
	default:
		c.Verdict = results.Holds
		c.Evidence = "shared tops: " + strings.Join(shared, "; ") + "; every pair differs in futex address, op, matched object or Go stack"
	}
	if len(notRead) > 0 && len(shared) > 0 {
		c.Evidence += fmt.Sprintf("; not measured (unreadable): %s", strings.Join(notRead, ", "))
	}
	return c
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func claimGoroutineLevel(cfgs []*results.Config) results.Claim {
	c := results.Claim{ID: ClaimGoroutineLevel, Statement: "a goroutine blocked on sync.Mutex or a channel blocks no OS thread: it is parked by the Go scheduler with a wait reason, and the runtime's threads sleep on their own notes"}
	var ok, bad []string
	for _, cf := range cfgs {
		if cf.Kind != "goroutine" {
			continue
		}
		w := cf.Detail["goroutine_wait"]
		if w != "" && !strings.HasPrefix(w, "syscall") && !strings.HasPrefix(w, "running") && !strings.HasPrefix(w, "runnable") && strings.HasPrefix(cf.Detail["tid"], "none") {
			ok = append(ok, fmt.Sprintf("%s [%s]", cf.Impl, w))
		} else {
			bad = append(bad, fmt.Sprintf("%s [%s] tid %s", cf.Impl, w, cf.Detail["tid"]))
		}
	}
	switch {
	case len(ok)+len(bad) == 0:
		c.Verdict, c.Evidence = results.NotEvaluated, "no goroutine-level mechanism in this run"
	case len(bad) > 0:
		c.Verdict, c.Evidence = results.DoesNotHold, "not parked by the scheduler: "+strings.Join(bad, ", ")
	default:
		c.Verdict, c.Evidence = results.Holds, "parked goroutines: "+strings.Join(ok, ", ")
	}
	return c
}

// notesFor explains, per mechanism present, what a user sees in a
// production stack dump or in perf/gdb, and how to tell them apart. The
// first note is built from what this run saw.
func notesFor(cfgs []*results.Config) []string {
	present := map[string]*results.Config{}
	wchans := map[string]bool{}
	var wchanList []string
	kstack := ""
	for _, c := range cfgs {
		present[c.Impl] = c
		if c.Kind == "goroutine" || c.Impl == StackGoRuntime || c.Detail == nil {
			continue
		}
		if w := c.Detail["wchan"]; w != "" && !strings.Contains(w, " ") && !wchans[w] {
			wchans[w] = true
			wchanList = append(wchanList, w)
		}
		if ks := c.Detail["kernel_stack"]; kstack == "" && ks != "" && !strings.HasPrefix(ks, "not readable") {
			kstack = strings.ReplaceAll(ks, "\n", " <- ")
		}
	}
	seen := "wchan " + strings.Join(wchanList, "/")
	if len(wchanList) == 0 {
		seen = "the futex wait function as wchan"
	}
	if kstack != "" {
		seen += ", kernel stack " + kstack
	}
	notes := []string{
		"Same stack top, several meanings (the study's macOS point: lock_slow -> __psynch_cvwait may be a parking_lot lock or a std Condvar). On Linux it holds in a stronger form: " +
			"every thread-level mechanism here sleeps in futex(2), state S, " + seen + " (the function is futex_wait_queue_me / futex_wait_queue / futex_do_wait depending on the kernel). " +
			"The kernel cannot tell a parking_lot mutex from a condvar from a bare parker from an idle Go M. Three things can: the futex op and expected value " +
			"(FUTEX_WAIT_PRIVATE val 1: parking_lot's futex parker; FUTEX_WAIT_BITSET_PRIVATE val -1: Rust std's park; FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME: glibc's pthread_cond_wait; " +
			"FUTEX_WAIT_PRIVATE val 0: a Go runtime note), the futex address (a per-thread parker word, a condvar's sequence word, a field of a pthread_cond_t in malloc'd memory, an M's note), " +
			"and the user-space stack: gdb `thread apply all bt`, `perf record -g` or `perf trace -e futex` for the threads; for Go, a goroutine dump (SIGQUIT, runtime.Stack, " +
			"pprof goroutine profile, dlv goroutines), where a blocked thread's goroutine shows [syscall, locked to thread].",
	}
	per := []struct{ name, text string }{
		{StackLotMutex, "lot-mutex (parking_lot RawMutex on the futex parker): FUTEX_WAIT_PRIVATE, value 1, no timeout, on the sleeping thread's own ThreadData parker word - not on the mutex. " +
			"parking_lot queues the thread in the hash-table bucket of the mutex's address and each thread sleeps on its own word, so the address matches no lock, and two threads " +
			"blocked on one lot mutex sleep on two different addresses. Only the stack says which lock: lot.(*Mutex).lockSlow -> lot.Park -> lot.park -> parkers.(*futexParker).Park " +
			"(in Rust, park and lock_bucket are inlined into lock_slow, as the study saw on macOS)."},
		{StackLotCondvar, "lot-condvar: the kernel side is identical to lot-mutex (FUTEX_WAIT_PRIVATE val 1 on a per-thread ThreadData parker word); only the Go stack differs: " +
			"lot.(*Condvar).Wait -> waitUntilInternal -> lot.Park. A thread waiting on a lot condvar and one blocked on a lot mutex are told apart by the user-space stack alone."},
		{StackFutex, "futex (parking_lot linux.rs ThreadParker used directly): FUTEX_WAIT_PRIVATE, value 1, NULL timeout (Park; ParkUntil passes a relative timespec), " +
			"on the parker's int32 state word; Go stack parkers.futexWaitRel <- (*futexParker).Park under syscall.Syscall6."},
		{StackPthread, "pthread (parking_lot unix.rs: mutex + condvar in C memory): glibc's pthread_cond_wait sleeps with FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME " +
			"(even untimed, and even on a CLOCK_MONOTONIC condvar: the flag only matters with a deadline), value 0, on __g_signals inside the pthread_cond_t (offset 40 in glibc's layout), " +
			"in malloc'd memory ([heap], or an anonymous glibc arena for a non-main thread). The Go stack ends at parkers._Cfunc_pb_park (cgo); only gdb/perf show the glibc frames (pthread_cond_wait -> __futex_abstimed_wait_common)."},
		{StackStd, "std (Rust std's Linux thread::park): FUTEX_WAIT_BITSET_PRIVATE with FUTEX_BITSET_MATCH_ANY, value -1 (PARKED), an absolute CLOCK_MONOTONIC deadline or NULL, " +
			"on the parker's state word: op and value tell it from parking_lot's FUTEX_WAIT val 1."},
		{StackCrossbeam, "crossbeam (Parker on a mutex + condvar; on Linux Rust std's futex condvar): the thread sleeps in the condvar wait, FUTEX_WAIT_BITSET_PRIVATE (std's futex_wait), " +
			"value = the condvar's sequence number, on the condvar word inside the Parker's shared inner state - neither the Parker's state word nor its mutex."},
		{StackFutexTimed, "futex-timed (ParkUntil an hour away): the same FUTEX_WAIT_PRIVATE, now with a relative timespec (parking_lot recomputes it from the monotonic clock on every turn of its loop)."},
		{StackPthreadTimed, "pthread-timed (pthread_cond_timedwait on a CLOCK_MONOTONIC condvar): FUTEX_WAIT_BITSET_PRIVATE without FUTEX_CLOCK_REALTIME and an absolute CLOCK_MONOTONIC deadline."},
		{StackPthreadWallclockTimed, "pthread-wallclock-timed (parking_lot 0.12's Apple behaviour: default condvar, deadline = gettimeofday + remaining): FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME " +
			"with an absolute CLOCK_REALTIME deadline - the wall-clock deadline of the study's timeout discussion, visible in the syscall: a clock step back by X moves this deadline X further away."},
		{StackStdTimed, "std-timed (park_timeout): FUTEX_WAIT_BITSET_PRIVATE with an absolute CLOCK_MONOTONIC deadline, the op Rust std uses for every futex wait."},
		{StackSyncMutex, "sync-mutex: no thread is blocked. The goroutine is parked by the Go scheduler, wait reason [sync.Mutex.Lock], frames sync.(*Mutex).Lock -> internal/sync.(*Mutex).lockSlow -> " +
			"runtime_SemacquireMutex (the runtime's own frames are hidden unless GOTRACEBACK=system). Its M went back to the scheduler and, if idle, sleeps in futex on its own m.park note. " +
			"gdb or perf show only those idle Ms; the blocked goroutine exists only in a goroutine dump."},
		{StackSyncMutexLocked, "sync-mutex-locked: the same wait from a goroutine locked to its OS thread (as every parkbench participant is, and as the chan/cond parkers run). Now the thread does sleep: " +
			"in futex on its M's park note (runtime.stoplockedm -> notesleep), FUTEX_WAIT_PRIVATE value 0, at an address that matches no user object. The goroutine dump says " +
			"[sync.Mutex.Lock, locked to thread]; that and the value-0 note address are what tell it from a parker."},
		{StackChan, "chan: a goroutine in a channel receive, [chan receive]; the frames show only the receiving function (runtime.chanrecv1 / gopark are hidden); no thread sleeps for it."},
		{StackGoRuntime, "go-runtime lists the process's other threads: idle Ms in futex FUTEX_WAIT_PRIVATE value 0 on their m.park notes (in a heap-allocated runtime m, or for m0 in the binary's " +
			"static data, runtime.m0), sysmon in nanosleep (runtime.usleep) or, when the process is idle, in futex with a timeout on runtime.sched's sysmonnote, and possibly one M in epoll_pwait " +
			"(the netpoller). These futex sleepers are what a perf/gdb view of any Go program shows, whatever the program is blocked on."},
	}
	for _, p := range per {
		if _, ok := present[p.name]; ok {
			notes = append(notes, p.text)
		}
	}
	return notes
}
