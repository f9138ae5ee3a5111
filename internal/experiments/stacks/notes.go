package stacks

import (
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

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
