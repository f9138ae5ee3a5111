package stacks

import (
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/parkers"
)

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

// mechanism is one selectable mechanism: what a listing shows (kind as the
// configuration records it, and what a blocked thread of it is), and for
// the parkers' own, which backend it parks and how.
type mechanism struct {
	driver.ImplInfo
	// parker is the parkers backend a thread parks on ("" for the
	// others); token: through its TokenParker; timed: with a deadline an
	// hour away, to show the timeout argument it passes to the kernel.
	parker       string
	token, timed bool
}

// mechanisms are the selectable mechanisms in display order.
var mechanisms = []mechanism{
	{ImplInfo: driver.ImplInfo{Name: StackLotMutex, Kind: "lot", Summary: "a thread blocked in lot.Mutex.Lock on a mutex the experiment holds"}},
	{ImplInfo: driver.ImplInfo{Name: StackLotCondvar, Kind: "lot", Summary: "a thread in lot.Condvar.Wait (its mutex released while it waits)"}},
	{ImplInfo: driver.ImplInfo{Name: StackFutex, Kind: "thread", Summary: "a thread in the futex ThreadParker's Park"}, parker: parkers.NameFutex},
	{ImplInfo: driver.ImplInfo{Name: StackPthread, Kind: "thread", Summary: "a thread in the pthread ThreadParker's Park (pthread_cond_wait through cgo)"}, parker: parkers.NamePthread},
	{ImplInfo: driver.ImplInfo{Name: StackStd, Kind: "token", Summary: "a thread in Rust std's thread::park (token parker)"}, parker: parkers.NameStd, token: true},
	{ImplInfo: driver.ImplInfo{Name: StackCrossbeam, Kind: "token", Summary: "a thread in crossbeam's Parker::park (token parker)"}, parker: parkers.NameCrossbeam, token: true},
	{ImplInfo: driver.ImplInfo{Name: StackFutexTimed, Kind: "thread", Summary: "a thread in the futex ThreadParker's ParkUntil, deadline in 1 h"}, parker: parkers.NameFutex, timed: true},
	{ImplInfo: driver.ImplInfo{Name: StackPthreadTimed, Kind: "thread", Summary: "a thread in the pthread ThreadParker's ParkUntil (pthread_cond_timedwait), deadline in 1 h"}, parker: parkers.NamePthread, timed: true},
	{ImplInfo: driver.ImplInfo{Name: StackPthreadWallclockTimed, Kind: "thread", Summary: "a thread in pthread-wallclock's ParkUntil (gettimeofday-based absolute deadline), deadline in 1 h"}, parker: parkers.NamePthreadWallclock, timed: true},
	{ImplInfo: driver.ImplInfo{Name: StackStdTimed, Kind: "token", Summary: "a thread in Rust std's park_timeout, deadline in 1 h"}, parker: parkers.NameStd, token: true, timed: true},
	{ImplInfo: driver.ImplInfo{Name: StackSyncMutex, Kind: "goroutine", Summary: "a goroutine blocked in sync.Mutex.Lock"}},
	{ImplInfo: driver.ImplInfo{Name: StackSyncMutexLocked, Kind: "goroutine-locked", Summary: "a goroutine locked to its OS thread (runtime.LockOSThread) blocked in sync.Mutex.Lock"}},
	{ImplInfo: driver.ImplInfo{Name: StackChan, Kind: "goroutine", Summary: "a goroutine in a channel receive"}},
}

// catalog is the selectable mechanisms; off Linux, Why says why none runs
// here.
func catalog() driver.Catalog[mechanism] {
	why := ""
	if err := available(); err != nil {
		why = err.Error()
	}
	return driver.Catalog[mechanism]{Noun: "mechanism", Items: mechanisms,
		Info: func(m mechanism) driver.ImplInfo { m.Why = why; return m.ImplInfo }}
}

// ImplNames lists the selectable mechanisms.
func ImplNames() []string { return catalog().Names() }

// Impls describes every selectable mechanism.
func Impls() []driver.ImplInfo { return catalog().Infos() }

// whatOf is the description of mechanism name.
func whatOf(name string) string {
	for _, m := range mechanisms {
		if m.Name == name {
			return m.Summary
		}
	}
	return name
}
