// Package parkers holds parkbench's thread-parker backends behind the
// interfaces of Rust's parking_lot_core (ThreadParkerT) and of token parkers
// (crossbeam's Parker, Rust std's thread::park).
//
// # Contracts
//
// ThreadParker is parking_lot_core's ThreadParkerT, the per-thread object the
// parking lot puts to sleep. It has no memory of its own: an unpark is only
// seen by a park that was prepared before it. The lot calls, in order,
//
//	PreparePark()           before the thread is queued, under the queue lock
//	Park() / ParkUntil(d)   after the queue lock is released
//	TimedOut()              under the queue lock, after ParkUntil returned false
//
// and the waker calls
//
//	h := UnparkLock()       under the queue lock: marks the thread unparked
//	h.Unpark()              after the queue lock is released: the syscall
//
// Marking under the lock and waking after it is what lets a thread be woken
// without the waker holding the bucket lock across a syscall. The waker must
// be another thread than the owner (with keyed events a release blocks until
// the target waits), and UnparkLock and Unpark must run on the same thread
// (pthread's mutex is locked in one and unlocked in the other; the backend
// pins the goroutine in between with LockOSThread).
//
// TokenParker is the crossbeam / std contract: Unpark may come first and leaves
// one token (not cumulative); the next Park consumes it and returns at once.
// ThreadFromToken turns any token parker into a ThreadParker, so the lot can
// run on crossbeam, std, chan and cond too.
//
// Every backend is one row of one table, backends.go: its name, kind and
// its one summary, the same on every OS (All, Lookup, Default,
// DefaultName read it). The files are named by one rule: <backend>.go holds
// a backend's portable logic (keyedevent.go, waitonaddress.go,
// std_windows7.go, std_sema.go and addrwait.go are OS-independent state
// machines, tested on Linux with fakes), <backend>_<goos>.go its OS shim,
// which attaches the constructors with provide; winapi_windows.go holds the
// Windows DLL calls the Windows shims share, darwin_cgo.go the darwin cgo
// calls (cgo in as few files as possible). A backend nothing provides in
// this build is listed with the reason its row gives (another OS, or no
// cgo), so that `parkbench list` can say why.
// Yield is the platform's thread_yield and CPURelax the spin hint, both for
// the lot's SpinWait. Kernel-sleeping backends implement WaitCounter.
//
// # Fault injection
//
// chaos.Point marks the windows a lost wakeup would hide in, named
// "<backend>.<operation>.<where>":
//
//   - between UnparkLock's mark and the wake: "futex.unpark.before-wake",
//     "pthread.unpark.before-signal" (the mutex is held there, as upstream),
//     "std.unpark.before-wake", "crossbeam.unpark.before-lock" (after the
//     swap), "crossbeam.unpark.before-notify" (after the unlock),
//     "waitaddress.unpark.before-wake", "ulock.unpark.before-wake",
//     "os-sync.unpark.before-wake", "keyedevent.unpark.before-release",
//     "token-thread.unpark.before-token", "cond.unpark.before-signal",
//     "chan.unpark.before-send"; and before the mark,
//     "spin.unpark-lock.before-mark";
//   - between the state check and the sleep: "*.park.before-wait",
//     "*.park-until.before-wait" (futex, waitaddress, keyedevent, pthread,
//     chan, cond, ulock, os-sync; crossbeam's is
//     "crossbeam.park.before-wait", timed or not),
//     "std.park-timeout.before-wait", "pthread.park.before-lock",
//     "crossbeam.park.before-lock" (between the fast path's CAS and the
//     lock), "cond.park.before-wait" / "cond.park-until.before-wait" (under
//     the mutex, between the token check and Wait), and per turn of the
//     spin parkers' untimed loop "spin.park.before-relax";
//   - inside C, in parkchaos builds only (pthread_chaos.go): pb_park and
//     pb_timedwait call back into chaos.Point under the mutex, between the
//     should_park check and the condvar wait:
//     "pthread.park.locked-before-wait",
//     "pthread.park-until.locked-before-wait"; other builds compile no hook
//     and keep one cgo call per park;
//   - after a wake, before the state is re-checked: "cond.park.after-wait",
//     "cond.park-until.after-wait", "crossbeam.park.after-wait" (before the
//     NOTIFIED CAS);
//   - after a timeout before the caller's TimedOut or the state swap:
//     "*.park-until.timed-out" (futex, waitaddress, keyedevent, pthread,
//     spin, token-thread, chan, ulock, os-sync), "crossbeam.park.timed-out",
//     "std.park-timeout.after-wait".
//
// # Thread parkers (parking_lot_core/src/thread_parker)
//
// default: the platform's parker in upstream's cfg_if order: futex on Linux,
// pthread on other Unix (unavailable without cgo, saying so), on Windows the
// run-time choice (WaitOnAddress, else keyed events, else upstream's panic
// message), wasm on wasip1/js, generic elsewhere (plan9).
//
// futex (linux.rs): an int32, 1 = park, 0 = unparked; FUTEX_WAIT|PRIVATE
// expecting 1, FUTEX_WAKE|PRIVATE of 1; ParkUntil recomputes a relative
// timespec from the monotonic clock each turn. The wait goes through
// unix.Syscall6, so the Go scheduler may hand the P away while the thread
// sleeps (and must take one back on wake: part of what is measured).
// Departures: orderings are Go's sequentially consistent atomics (stronger
// than Relaxed/Release/Acquire); EFAULT on wake is tolerated as upstream,
// though in Go it cannot happen (the handle keeps the word reachable, where
// upstream's ThreadData may already be freed).
//
// futex-raw: futex with the wait (and the wake, which never blocks) through
// unix.RawSyscall6. Not upstream: it measures what the Go scheduler adds to
// a wake, by taking the scheduler out of the wait (the P stays with the
// thread). A raw wait holds the P, so stop-the-world must interrupt it:
// every wait has a timeout (1 s), which makes the kernel return EINTR when
// the runtime's preemption signal arrives (an untimed FUTEX_WAIT would be
// restarted under SA_RESTART); the bound itself only matters under
// GODEBUG=asyncpreemptoff=1 (docs/scheduler.md). futex-raw-1ms keeps a 1 ms
// bound beside it, to show what the bound costs a slept wake
// (docs/findings.md, "What things cost"). It has futex's keep-alive
// Gosched, without which sysmon preempts the sleeping thread every 10 ms.
// Use only with GOMAXPROCS above the number of participants, GC off during
// measurement, and a watchdog.
//
// pthread (unix.rs): should_park + pthread mutex + condvar, malloc'd in C
// (never Go memory: they must not move), freed by runtime.AddCleanup or
// Close. unpark_lock locks the target's mutex under the queue lock; Unpark
// clears should_park and signals while holding it, then unlocks (upstream:
// the target could exit and destroy its condvar after the unlock; in Go the
// handle keeps it alive, the order is kept for fidelity); TimedOut takes the
// mutex. One cgo call per park, per timed-wait turn, per unpark_lock and per
// unpark; the loops run in C. The monotonic check of ParkUntil's loop is in
// Go between turns (upstream holds the mutex across the whole loop; here it
// is released between turns, and should_park is re-checked under it each
// time, so nothing is lost). Timed waits are planned in pthread_clock.go:
// on Linux a CLOCK_MONOTONIC condattr and absolute monotonic deadline, on
// Apple upstream's gettimeofday + CLOCK_REALTIME.
//
// pthread-wallclock: parking_lot 0.12's Apple timed wait on every OS: default
// (CLOCK_REALTIME) condvar, deadline gettimeofday + remaining, absolute
// timedwait, monotonic re-check; a wall-clock step back lengthens the wait
// (tested with fake clocks: the test cannot step the real clock).
//
// pthread-relative: the later relative waits (Rust std PR #146503,
// CPython): pthread_cond_timedwait_relative_np on Apple; on glibc >= 2.30
// pthread_cond_clockwait(CLOCK_MONOTONIC) with monotonic now + remaining
// (Linux has no relative condvar wait; this is its equivalent, immune to
// wall-clock steps); elsewhere a monotonic-condattr timedwait.
//
// waitonaddress, keyedevent (windows/): WaitOnAddress(key, 1) /
// WakeByAddressSingle from api-ms-win-core-synch-l1-2-0.dll, timeout in ms
// rounded up, too large = INFINITE; NtWaitForKeyedEvent/NtReleaseKeyedEvent
// from ntdll with UNPARKED/PARKED/TIMED_OUT, negative 100 ns timeouts, and
// the rule that a thread timing out after being marked UNPARKED still waits
// once to take the release (else the waker blocks forever). Loaded at run
// time; the state machines and the selection are OS-independent
// (keyedevent.go, waitonaddress.go, windows_choice.go, std_windows7.go) and tested on Linux with fakes.
//
// ulock, os-sync (darwin, beyond the study; addrwait.go + darwin_cgo.go):
// linux.rs's word (1 = park, 0 = unparked) on __ulock_wait /
// __ulock_wake (UL_COMPARE_AND_WAIT, private, prototypes declared here as
// libc++ does; timeouts in µs rounded up, sliced at 2^32-1 µs) and on
// os_sync_wait_on_address(_with_timeout) / os_sync_wake_by_address_any
// (public since macOS 14.4, found with dlsym at start: unavailable, with
// that reason, on older systems). The parker logic is tested on Linux on
// the real futex and on a fake. Compiled for darwin; never executed.
//
// wasm (wasm.rs): every method panics ("Parking not supported on this
// platform"): without threads a park could only block forever.
//
// spin, generic (generic.rs, 0.9.x): a flag polled in a busy loop with a
// pause hint per turn; unpark is a no-op. Go has no PAUSE, so the hint is
// CPURelax (an atomic load). The two names are the same code: generic is
// upstream's name for it.
//
// yield, generic-yield (later generic.rs, "Yield in generic thread parker"):
// the flag polled with thread_yield (Yield: sched_yield(2) on Linux, Sleep(0)
// on Windows) each turn. Same code under two names.
//
// gosched: the flag polled with runtime.Gosched: yields the P to other
// goroutines, not the thread to the kernel. Not upstream: Go's equivalent.
//
// # Token parkers
//
// std (library/std/src/sys/sync/thread_parking/futex.rs): PARKED=-1,
// EMPTY=0, NOTIFIED=1; park decrements (NOTIFIED->EMPTY returns) and sleeps
// on FUTEX_WAIT_BITSET|PRIVATE with an absolute CLOCK_MONOTONIC deadline;
// park_timeout makes one wait then swaps EMPTY and cannot tell a timeout from
// a spurious wakeup (ParkDeadline reports whether it consumed the token,
// which std does not expose); unpark swaps NOTIFIED and wakes only a PARKED
// thread. On darwin (thread_parking/darwin.rs, std_sema.go + darwin_cgo.go)
// the same states sit on a libdispatch semaphore: park waits until the
// semaphore really decremented, park_timeout waits once through
// dispatch_time and, after a timeout that raced an unpark, takes that
// unpark's signal so the count is 0 again; unpark signals only a PARKED
// thread. The darwin state machine is tested on Linux on a fake semaphore.
//
// crossbeam (crossbeam-utils sync/parker.rs): EMPTY/PARKED/NOTIFIED on a
// mutex + condvar, SeqCst, with upstream's lock-then-unlock-then-notify
// unpark. Also a public API: NewCrossbeam, Parker.Unparker, Unparker.Clone,
// Park, ParkTimeout, ParkDeadline (bool = crossbeam main's UnparkReason).
// On Linux the mutex and condvar are futex-based like Rust std's (which is
// what crossbeam's std::sync::Mutex/Condvar are there) and block the OS
// thread; on darwin they are std's macOS ones, a PTHREAD_MUTEX_NORMAL
// pthread mutex and a pthread condvar with pthread_cond_timedwait_relative_np
// timed waits, in C memory allocated on first use (darwin_cgo.go);
// elsewhere they fall back to sync.Mutex and a one-slot channel condvar
// (goroutine-level; sync.Cond has no timed wait).
//
// # Go-native (goroutine-level)
//
// chan: a buffered channel of one as the token, non-blocking send to unpark,
// a reused timer for deadlines. cond: sync.Mutex + sync.Cond + a flag, with a
// reused AfterFunc timer that broadcasts at the deadline. Both park the
// goroutine in the Go scheduler, not the thread in the kernel.
package parkers
