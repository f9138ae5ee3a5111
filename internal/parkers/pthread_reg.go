package parkers

import "runtime"

// pthreadKindDoc says what each pthread mode does on this OS.
func pthreadNativeDoc() string {
	switch runtime.GOOS {
	case "darwin", "ios", "android":
		return "CLOCK_REALTIME condvar (no setclock here), gettimeofday deadline (= pthread-wallclock)"
	}
	return "CLOCK_MONOTONIC condattr, absolute monotonic deadline"
}

func pthreadRelativeDoc() string {
	switch runtime.GOOS {
	case "darwin", "ios":
		return "pthread_cond_timedwait_relative_np(remaining)"
	case "linux":
		return "pthread_cond_clockwait(CLOCK_MONOTONIC, now+remaining) on glibc >= 2.30, else a monotonic-condattr timedwait"
	}
	return "monotonic-condattr pthread_cond_timedwait(now+remaining)"
}

// registerPthread registers the three pthread names with the given
// availability and constructors (nil constructors where unavailable).
func registerPthread(why func() error, native, wall, rel func() ThreadParker) {
	Register(Backend{
		Name: NamePthread,
		Kind: KindThread,
		Summary: "parking_lot unix.rs: should_park + pthread mutex/condvar in C memory (cgo), waker locks the mutex in unpark_lock, " +
			"signals before unlocking; timed wait: " + pthreadNativeDoc(),
		Sleeps:           true,
		CheapToConstruct: false, // upstream IS_CHEAP_TO_CONSTRUCT = false
		Unavailable:      why,
		NewThread:        native,
		Order:            orderPthread,
	})
	Register(Backend{
		Name: NamePthreadWallclock,
		Kind: KindThread,
		Summary: "pthread with parking_lot 0.12's Apple timed wait: CLOCK_REALTIME condvar, deadline = gettimeofday + remaining, " +
			"absolute timedwait, monotonic re-check loop (a clock step back lengthens the wait)",
		Sleeps:      true,
		Unavailable: why,
		NewThread:   wall,
		Order:       orderPthreadWallclock,
	})
	Register(Backend{
		Name:        NamePthreadRelative,
		Kind:        KindThread,
		Summary:     "pthread with relative timed waits (Rust std #146503, CPython): remaining time from the monotonic clock each wait; here " + pthreadRelativeDoc(),
		Sleeps:      true,
		Unavailable: why,
		NewThread:   rel,
		Order:       orderPthreadRelative,
	})
}
