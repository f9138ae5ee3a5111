package stacks

import (
	"fmt"
	"strings"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
)

// Claim IDs of the stacks experiment.
const (
	ClaimSameStackTop   = "stacks-same-top-several-meanings"
	ClaimGoroutineLevel = "stacks-goroutine-level-blocks-no-thread"
)

// Claims evaluates the experiment's claims from its configurations
// (pure: it reads Kind and Detail only). Their figures are counts, each
// over the whole run.
func Claims(cfgs []*results.Config) []results.Claim {
	return claim.EvaluateAll(cfgs,
		claim.Rule{ID: ClaimSameStackTop, Statement: "the same stack top can mean several things: several mechanisms sleep with the same wait channel in the same system call, " +
			"and the futex address, the futex op or the Go stack tells each apart",
			Needs: "needs two sleeping thread-level mechanisms that share a wait channel and system call",
			Select: func(c *results.Config) bool {
				return c.Detail != nil && c.Kind != "goroutine" && c.Impl != StackGoRuntime
			},
			Figures: sameTop},
		claim.Rule{ID: ClaimGoroutineLevel, Statement: "a goroutine blocked on sync.Mutex or a channel blocks no OS thread: it is parked by the Go scheduler with a wait reason, and the runtime's threads sleep on their own notes",
			Needs:  "needs a goroutine-level mechanism (sync-mutex, chan)",
			Select: func(c *results.Config) bool { return c.Kind == "goroutine" },
			Figures: func(cs []*results.Config) []claim.Figure {
				var ok, bad []string
				for _, c := range cs {
					w := c.Detail["goroutine_wait"]
					if w != "" && !strings.HasPrefix(w, "syscall") && !strings.HasPrefix(w, "running") && !strings.HasPrefix(w, "runnable") && strings.HasPrefix(c.Detail["tid"], "none") {
						ok = append(ok, fmt.Sprintf("%s [%s]", c.Impl, w))
					} else {
						bad = append(bad, fmt.Sprintf("%s [%s] tid %s", c.Impl, w, c.Detail["tid"]))
					}
				}
				note := "parked goroutines: " + strings.Join(ok, ", ")
				if len(bad) > 0 {
					note = "not parked by the scheduler: " + strings.Join(bad, ", ")
				}
				return []claim.Figure{claim.Fig("goroutine mechanisms not parked by the scheduler", []float64{float64(len(bad))}, cs...).AtMost(0).With(note)}
			}},
	)
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

// sameTop groups the sleeping threads by (wait channel, system call) and
// counts the pairs in a shared group that nothing tells apart (futex
// address, op, matched object and Go stack all equal). A thread whose
// figures could not be read joins no group (all "not readable" threads
// would otherwise look like one shared top).
func sameTop(cs []*results.Config) []claim.Figure {
	type top struct{ wchan, sys string }
	groups := map[top][]*results.Config{}
	var order []top
	var notRead []string
	for _, c := range cs {
		d := c.Detail
		if unreadable(d["state"]) || unreadable(d["wchan"]) || unreadable(d["syscall"]) {
			notRead = append(notRead, c.Impl)
			continue
		}
		if d["wchan"] == "" || !strings.HasPrefix(d["state"], "S") {
			continue
		}
		sys, _, _ := strings.Cut(d["syscall"], "(")
		k := top{d["wchan"], sys}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	var shared, clash []string
	var of []*results.Config
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		var names []string
		for i, a := range g {
			names = append(names, a.Impl)
			for _, b := range g[i+1:] {
				x, y := a.Detail, b.Detail
				if x["futex_addr"] == y["futex_addr"] && x["futex_op"] == y["futex_op"] && firstLine(x["go_stack"]) == firstLine(y["go_stack"]) && x["matches"] == y["matches"] {
					clash = append(clash, a.Impl+" = "+b.Impl)
				}
			}
		}
		of = append(of, g...)
		shared = append(shared, fmt.Sprintf("%s in %s: %s", k.wchan, k.sys, strings.Join(names, ", ")))
	}
	unread := fmt.Sprintf("the wait channel or system call of %d threads (%s) could not be read (run as root, or allow ptrace)", len(notRead), strings.Join(notRead, ", "))
	switch {
	case len(shared) == 0 && len(notRead) > 0:
		return []claim.Figure{claim.Fig("shared stack tops", nil).Skip(unread)}
	case len(shared) == 0:
		return nil
	}
	note := "shared tops: " + strings.Join(shared, "; ")
	if len(clash) > 0 {
		note += "; indistinguishable by address, op and Go stack: " + strings.Join(clash, ", ")
	}
	if len(notRead) > 0 {
		note += "; not measured (unreadable): " + strings.Join(notRead, ", ")
	}
	return []claim.Figure{claim.Fig("pairs sharing a stack top that nothing tells apart", []float64{float64(len(clash))}, of...).AtMost(0).With(note)}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
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
			"on the parker's int32 state word; Go stack futex.Wait <- parkers.(*futexParker).Park under syscall.Syscall6."},
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
