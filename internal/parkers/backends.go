package parkers

import "runtime"

// Backend names, the user's --impl vocabulary.
const (
	NameDefault          = "default"
	NameFutex            = "futex"
	NameFutexRaw         = "futex-raw"
	NameFutexPlain       = "futex-plain"
	NameFutexSpin        = "futex-spin"
	NameFutexCgo         = "futex-cgo"
	NameFutexRaw1ms      = "futex-raw-1ms"
	NamePthread          = "pthread"
	NamePthreadWallclock = "pthread-wallclock"
	NamePthreadRelative  = "pthread-relative"
	NameStd              = "std"
	NameCrossbeam        = "crossbeam"
	NameWaitOnAddress    = "waitonaddress"
	NameKeyedEvent       = "keyedevent"
	NameUlock            = "ulock"
	NameOSSync           = "os-sync"
	NameWasm             = "wasm"
	NameSpin             = "spin"
	NameYield            = "yield"
	NameGosched          = "gosched"
	NameGeneric          = "generic"
	NameGenericYield     = "generic-yield"
	NameChan             = "chan"
	NameCond             = "cond"
)

// row is one backend of the table: what a listing says of it on every OS
// (its Backend without constructors), and why it does not run where no
// file of this build provides it.
type row struct {
	Backend
	// notHere is the reason on an OS it is not built for: "Linux only:
	// futex(2) is a Linux system call".
	notHere string
	// cgoHere reports whether it runs here through cgo (the OS is one of
	// its own): a build without cgo provides nothing for it, and the
	// reason is "needs cgo" and cgoWhy.
	cgoHere func() bool
	cgoWhy  string
}

// backends is every backend parkbench knows, in `parkbench list` order, on
// every OS: the platform default first, then the kernel-sleeping thread
// parkers in parking_lot_core's cfg_if order (futex and its variants,
// pthread and its clock modes), the token parkers, the OS-specific ones
// that only run elsewhere, the non-sleeping ones, and last the Go-native
// (goroutine-level) mechanisms.
//
// This is the one place a backend's name, kind and summary are written.
// The per-OS files (<backend>_<goos>.go, and the portable <backend>.go for
// what runs everywhere) attach what runs here with provide: the
// constructors and, where the machine decides (a DLL export, a macOS
// version, cgo), why not.
var backends = []row{
	{Backend: Backend{Name: NameDefault, Kind: KindThread,
		Summary: "the platform's parker in parking_lot_core's cfg_if order (linux futex, other unix pthread, " +
			"windows WaitOnAddress else keyed events, wasm panics, else generic); here: " + defaultHere(),
		Sleeps: runtime.GOOS != "wasip1" && runtime.GOOS != "js", CheapToConstruct: defaultHere() != NamePthread}},

	{Backend: Backend{Name: NameFutex, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "parking_lot linux.rs: int32 word, private FUTEX_WAIT/FUTEX_WAKE via unix.Syscall6 (scheduler-aware), relative timeout; " +
			"a Gosched every 5 ms of parks keeps sysmon from stealing the P on every wait (docs/scheduler.md)"},
		notHere: linuxOnly},
	{Backend: Backend{Name: NameFutexRaw, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "futex with wait and wake through unix.RawSyscall6 (bypasses the Go scheduler: the P stays with the thread); " +
			"every wait bounded to 1 s, and stop-the-world's preemption signal interrupts it at once (EINTR); the keep-alive " +
			"Gosched every 5 ms, so sysmon never preempts it; safe only with GOMAXPROCS > participants, GC off, a watchdog"},
		notHere: linuxOnly},
	{Backend: Backend{Name: NameFutexPlain, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "futex exactly as linux.rs via unix.Syscall6, no keep-alive: after 10 ms sysmon steals the P on nearly every wait (docs/scheduler.md)"},
		notHere: linuxOnly},
	{Backend: Backend{Name: NameFutexSpin, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "futex with the keep-alive and a short spin (100 checks of the word, ~1 µs) before FUTEX_WAIT, as SpinWait's first steps"},
		notHere: linuxOnly},
	{Backend: Backend{Name: NameFutexCgo, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "futex-plain with FUTEX_WAIT through a cgo call to syscall(2) (cgocall's entersyscall instead of Syscall6's); needs cgo"},
		notHere: linuxOnly},
	{Backend: Backend{Name: NameFutexRaw1ms, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "futex-raw with every wait bounded to 1 ms instead of 1 s: the bound's own cost on a slept wake (docs/findings.md, \"What things cost\")"},
		notHere: linuxOnly},

	{Backend: Backend{Name: NamePthread, Kind: KindThread, Sleeps: true,
		CheapToConstruct: false, // upstream IS_CHEAP_TO_CONSTRUCT = false
		Summary: "parking_lot unix.rs: should_park + pthread mutex/condvar in C memory (cgo), waker locks the mutex in unpark_lock, " +
			"signals before unlocking; timed wait: " + pthreadNativeDoc()},
		notHere: unixOnly, cgoHere: isUnix, cgoWhy: pthreadCgoWhy},
	{Backend: Backend{Name: NamePthreadWallclock, Kind: KindThread, Sleeps: true,
		Summary: "pthread with parking_lot 0.12's Apple timed wait: CLOCK_REALTIME condvar, deadline = gettimeofday + remaining, " +
			"absolute timedwait, monotonic re-check loop (a clock step back lengthens the wait)"},
		notHere: unixOnly, cgoHere: isUnix, cgoWhy: pthreadCgoWhy},
	{Backend: Backend{Name: NamePthreadRelative, Kind: KindThread, Sleeps: true,
		Summary: "pthread with relative timed waits (Rust std #146503, CPython): remaining time from the monotonic clock each wait; here " + pthreadRelativeDoc()},
		notHere: unixOnly, cgoHere: isUnix, cgoWhy: pthreadCgoWhy},

	{Backend: Backend{Name: NameStd, Kind: KindToken, Sleeps: true, CheapToConstruct: true,
		Summary: "Rust std's thread::park, as std builds it here: " + stdHere()},
		notHere: "Linux (futex), macOS (libdispatch semaphore, cgo) and Windows (WaitOnAddress) only: Rust std's thread parker here is none of them",
		cgoHere: func() bool { return runtime.GOOS == "darwin" },
		cgoWhy:  "Rust std's darwin parker is a libdispatch semaphore called through cgo"},
	{Backend: Backend{Name: NameCrossbeam, Kind: KindToken, Sleeps: true, CheapToConstruct: true,
		Summary: "crossbeam-utils Parker/Unparker: EMPTY/PARKED/NOTIFIED on a mutex + condvar, SeqCst; unpark locks+unlocks then notify_one; " + cbPrimitives}},

	{Backend: Backend{Name: NameWaitOnAddress, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "parking_lot windows/waitaddress.rs: WaitOnAddress(key, 1)/WakeByAddressSingle, timeout in ms rounded up"},
		notHere: "Windows only: WaitOnAddress is a Windows 8+ API"},
	{Backend: Backend{Name: NameKeyedEvent, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "parking_lot windows/keyed_event.rs: NtWaitForKeyedEvent/NtReleaseKeyedEvent, ARMED/PARKED/UNPARKED/TIMED_OUT, " +
			"release only to a committed waiter (std windows7.rs rule, so a self-wake cannot block), a late timeout still takes the release"},
		notHere: "Windows only: NT keyed events are an ntdll.dll API (Windows XP+)"},
	{Backend: Backend{Name: NameUlock, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "beyond the study: linux.rs's int32 word on darwin's private futex, __ulock_wait(UL_COMPARE_AND_WAIT, expect 1, " +
			"timeout in microseconds) / __ulock_wake (what libc++'s atomic wait uses; std's darwin.rs names it and may not use it)"},
		notHere: darwinOnly, cgoHere: isDarwin, cgoWhy: darwinCgoWhy},
	{Backend: Backend{Name: NameOSSync, Kind: KindThread, Sleeps: true, CheapToConstruct: true,
		Summary: "beyond the study: linux.rs's int32 word on os_sync_wait_on_address(_with_timeout, MACH_ABSOLUTE_TIME) / " +
			"os_sync_wake_by_address_any, public since macOS 14.4, resolved at run time with dlsym"},
		notHere: darwinOnly, cgoHere: isDarwin, cgoWhy: darwinCgoWhy},
	{Backend: Backend{Name: NameWasm, Kind: KindThread, CheapToConstruct: true,
		Summary: "parking_lot wasm.rs (wasm without atomics): every park panics \"Parking not supported on this platform\""},
		notHere: wasmOnly},

	{Backend: Backend{Name: NameSpin, Kind: KindThread, CheapToConstruct: true,
		Summary: "busy wait on a flag with CPURelax (one atomic load: Go has no PAUSE) per turn; burns the CPU; the busy-wait floor"}},
	{Backend: Backend{Name: NameYield, Kind: KindThread, CheapToConstruct: true,
		Summary: "poll a flag, " + yieldImpl + " each turn (Yield); never sleeps in the kernel"}},
	{Backend: Backend{Name: NameGosched, Kind: KindThread, CheapToConstruct: true,
		Summary: "poll a flag, runtime.Gosched each turn: yields the P to other goroutines; on a locked thread each Gosched is a " +
			"scheduler hand-off (the M sleeps until its goroutine is run again)"}},
	{Backend: Backend{Name: NameGeneric, Kind: KindThread, CheapToConstruct: true,
		Summary: "parking_lot 0.9.x generic.rs: AtomicBool + spin_loop busy spin, unpark a no-op (same algorithm as spin)"}},
	{Backend: Backend{Name: NameGenericYield, Kind: KindThread, CheapToConstruct: true,
		Summary: "later generic.rs (\"Yield in generic thread parker\"): flag polled with thread_yield = " + yieldImpl + " (same algorithm as yield)"}},

	{Backend: Backend{Name: NameChan, Kind: KindGoroutine, Sleeps: true, CheapToConstruct: true,
		Summary: "goroutine-level (Go scheduler): buffered channel of 1 as the token; Unpark = non-blocking send, park = receive, timed park with a reused timer"}},
	{Backend: Backend{Name: NameCond, Kind: KindGoroutine, Sleeps: true, CheapToConstruct: true,
		Summary: "goroutine-level (Go scheduler): sync.Mutex + sync.Cond + token flag; timed park via a reused AfterFunc timer that broadcasts"}},
}

// The reasons rows share.
const (
	linuxOnly     = "Linux only: futex(2) is a Linux system call"
	unixOnly      = "Unix only: pthread mutex + condvar through cgo"
	darwinOnly    = "macOS only: a darwin compare-and-wait through cgo"
	wasmOnly      = "wasm only (GOOS=wasip1 or js): the parker that panics where threads do not exist"
	pthreadCgoWhy = "the pthread mutex and condvar live in C memory and are called through cgo"
	darwinCgoWhy  = "__ulock_wait and os_sync_wait_on_address are libSystem calls made through cgo"
)

func isDarwin() bool { return runtime.GOOS == "darwin" }

// isUnix is Go's unix build constraint, at run time.
func isUnix() bool {
	switch runtime.GOOS {
	case "aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "linux", "netbsd", "openbsd", "solaris":
		return true
	}
	return false
}

// defaultHere is the backend "default" is on this OS, for its summary;
// Windows decides at run time (it loads DLLs).
func defaultHere() string {
	if runtime.GOOS == "windows" {
		return "run-time choice"
	}
	name, _ := defaultTarget()
	return name
}

// stdHere says what Rust std's thread parker is on this OS.
func stdHere() string {
	switch runtime.GOOS {
	case "linux":
		return "int32 PARKED=-1/EMPTY=0/NOTIFIED=1, FUTEX_WAIT_BITSET|PRIVATE with an absolute " +
			"CLOCK_MONOTONIC deadline, wake only if PARKED; park_timeout may return spuriously"
	case "darwin":
		return "int8 state PARKED=-1/EMPTY=0/NOTIFIED=1 on a libdispatch semaphore " +
			"(dispatch_semaphore_create(0)/_wait/_signal), signal only if PARKED; park_timeout waits once through " +
			"dispatch_time(NOW, ns) and takes a late signal after a timeout"
	case "windows":
		return "windows7.rs: i8 PARKED=-1/EMPTY=0/NOTIFIED=1, WaitOnAddress(state, &PARKED, 1)/" +
			"WakeByAddressSingle, timeout in ms rounded up, park_timeout may return spuriously; NT keyed events where WaitOnAddress is missing (std's win7 target)"
	}
	return "futex on Linux, libdispatch semaphore on macOS, WaitOnAddress on Windows"
}

// pthreadNativeDoc says what pthread's timed wait is on this OS.
func pthreadNativeDoc() string {
	switch runtime.GOOS {
	case "darwin", "ios", "android":
		return "CLOCK_REALTIME condvar (no setclock here), gettimeofday deadline (= pthread-wallclock)"
	}
	return "CLOCK_MONOTONIC condattr, absolute monotonic deadline"
}

// pthreadRelativeDoc says what pthread-relative's timed wait is on this OS.
func pthreadRelativeDoc() string {
	switch runtime.GOOS {
	case "darwin", "ios":
		return "pthread_cond_timedwait_relative_np(remaining)"
	case "linux":
		return "pthread_cond_clockwait(CLOCK_MONOTONIC, now+remaining) on glibc >= 2.30, else a monotonic-condattr timedwait"
	}
	return "monotonic-condattr pthread_cond_timedwait(now+remaining)"
}
