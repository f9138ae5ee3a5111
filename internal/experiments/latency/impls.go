package latency

import (
	"unsafe"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/pingpong"
)

// E12 implementation names beyond the parker backends.
const (
	ImplLot     = "lot"      // parking_lot_core Park / UnparkOne
	ImplCFutex  = "c-futex"  // C reference, raw futex
	ImplCSpin   = "c-spin"   // C reference, busy wait
	ImplGoFutex = "go-futex" // Go twin of c-futex: same protocol, no parker
	ImplGoSpin  = "go-spin"  // Go twin of c-spin
	// ImplSpinOneLine is spin's ThreadParker protocol with the parker's
	// word on the flag's cache line (pingpong.OneLineSpin).
	ImplSpinOneLine = "spin-1line"
	ImplAll         = "all"

	// KindLot and KindCRef are Config.Kind values of the non-backend
	// implementations.
	KindLot  = "lot"
	KindCRef = "c-reference"
	KindTwin = "go-reference"
)

// e12Impl is one implementation E12 can measure.
type e12Impl struct {
	name string
	kind string // Config.Kind
	// sleeps: a wait blocks in the kernel (or the Go scheduler).
	sleeps bool
	// busy: spins without ever giving up the CPU; two of them on one
	// CPU only measure the scheduler's time slice.
	busy bool
	// raw: the wait bypasses the Go scheduler (RawSyscall).
	raw bool
	// never: a reason it is never run (wasm panics on park by design).
	never string
	// goroutinesOnly: runs only between plain goroutines (internal/pingpong's
	// goroutines.go).
	goroutinesOnly bool
	// why: the reason it is unavailable here, "" when available.
	why     string
	backend parkers.Backend
	// cmode is the C reference's mode (KindCRef rows only).
	cmode cref.Mode
	// summary is one line for `parkbench list`.
	summary string
	// plugin is a plugin implementation's struct pb_impl, for its C row
	// (KindCRef, cmode cref.Plugin).
	plugin unsafe.Pointer
	// own: the C row runs the library's own loops where it has them (ABI
	// version 2): the c-NAME row; the c-NAME.fp row calls its functions.
	own ext.Loops
}

// ownLoop is the "loop" parameter of a plugin's C row in an experiment
// where the library's own loop is has (latency: PingPong; selfwake:
// Selfwake): "own" or "function pointers" ("" for other rows).
func (im e12Impl) ownLoop(has bool) string {
	switch {
	case im.plugin == nil:
		return ""
	case has:
		return ext.LoopOwn
	}
	return ext.LoopFuncPointers
}

// e12Impls lists every implementation in list order: the parker backends
// (the registered implementations' after the built-in ones), then lot, the
// Go twins of the C reference, then the C reference.
func e12Impls() []e12Impl {
	var out []e12Impl
	for _, b := range ext.Parkers() {
		im := e12Impl{name: b.Name, kind: string(b.Kind), sleeps: b.Sleeps, backend: b, summary: b.Summary}
		im.busy = !b.Sleeps && (b.Name == parkers.NameSpin || b.Name == parkers.NameGeneric)
		im.raw = parkers.IsRaw(b.Name)
		if b.Name == parkers.NameWasm {
			im.never = "parking_lot's wasm backend (no atomics) aborts the thread on any park, by design; never run"
		}
		if w := b.Why(); w != "" {
			im.why = w
		} else if b.NewThread == nil && b.NewToken == nil {
			im.why = "backend has no constructor"
		}
		out = append(out, im)
	}
	twinWhy := errText(pingpong.TwinsAvailable())
	out = append(out,
		e12Impl{name: ImplLot, kind: KindLot, sleeps: true,
			summary: "parking_lot_core port: Park (validate checks the flag) / UnparkOne on the hash table of buckets, over the default parker (LotParker picks another)"},
		e12Impl{name: ImplGoFutex, kind: KindTwin, sleeps: true, why: twinWhy,
			summary: "Go twin of c-futex: the C loop's FUTEX_WAIT/WAKE_PRIVATE protocol in Go, no parker"},
		e12Impl{name: ImplGoSpin, kind: KindTwin, busy: true, why: twinWhy,
			summary: "Go twin of c-spin: busy-waiting on the flag in Go, no parker"},
		e12Impl{name: ImplSpinOneLine, kind: KindTwin, busy: true,
			summary: "spin's protocol (generic.rs: PreparePark stores should-park, UnparkLock clears it, Park spins on it) with that word on the flag's cache line: a comparison, not a parker; against spin it is the second line, against go-spin the protocol's own stores"},
	)
	// The C floors of this OS (c-futex on Linux, c-ulock on darwin; c-spin
	// everywhere cgo runs).
	crefWhy := errText(cref.Available())
	for _, f := range cref.Floors() {
		out = append(out, e12Impl{name: f.Name, kind: KindCRef, sleeps: f.Sleeps, busy: !f.Sleeps,
			why: crefWhy, summary: f.Summary, cmode: f.Mode})
	}
	// Each plugin parker (or lot) also as c-NAME: the C ping-pong with
	// its threads calling the library's functions (the parkers
	// themselves are among ext.Parkers, above); one that failed its
	// conformance check is unavailable in both rows.
	for _, x := range ext.All() {
		if b, ok := x.Backend(); ok && x.C != nil {
			why := crefWhy
			if why == "" {
				why = b.Why()
			}
			row := e12Impl{name: ext.CName(x.Name), kind: KindCRef, sleeps: x.Sleeps, busy: !x.Sleeps,
				why: why, cmode: cref.Plugin, plugin: x.C,
				summary: x.Name + " from C threads calling its functions: no Go runtime in the loop"}
			if x.Own.Any() {
				// Its own loops (ABI version 2) where it has them; the
				// function pointers' row stays, as c-NAME.fp.
				fp := row
				fp.name = ext.CFuncName(x.Name)
				row.own = x.Own
				row.summary = x.Name + " from C threads in its own loops where it has them (latency's wait, selfwake's loop)"
				out = append(out, row, fp)
				continue
			}
			out = append(out, row)
		}
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// catalog is latency's implementations: every one of e12Impls.
func catalog() driver.Catalog[e12Impl] {
	return driver.Catalog[e12Impl]{Items: e12Impls(), Info: e12Impl.info, Never: func(im e12Impl) string { return im.never }}
}

func (im e12Impl) info() driver.ImplInfo {
	return driver.ImplInfo{Name: im.name, Kind: im.kind, Summary: im.summary, Why: im.why}
}

// Impls describes every implementation latency accepts, in list order:
// catalog's, then the goroutine-only ones (GoroutineImpls).
func Impls() []driver.ImplInfo { return append(catalog().Infos(), GoroutineImpls()...) }

// ImplNames returns every latency implementation name (for help and errors).
func ImplNames() []string { return catalog().Names() }

// FirstAvailable returns the first of names that runs here ("" if none):
// a Linux name first, then the other platforms' equivalents, so that one
// call picks a sleeping parker on any OS.
func FirstAvailable(names ...string) string {
	c := catalog()
	for _, n := range names {
		if c.Runs(n) {
			return n
		}
	}
	return ""
}

// Available is those of names that run here, in their order: a run that
// names its implementations (the suite's one-screen run) measures what
// this platform has instead of refusing one it lacks.
func Available(names ...string) []string {
	c := catalog()
	var out []string
	for _, n := range names {
		if c.Runs(n) {
			out = append(out, n)
		}
	}
	return out
}

// Goroutine-only implementations: sync primitives used as a semaphore,
// through the runtime's semaphores (the Go runtime's runtime/sema.go).
const (
	// ImplMutexSema: a sync.Mutex held by the waiter's peer; the wake is
	// its Unlock (semrelease1), the wait a Lock (semacquire1).
	ImplMutexSema = "mutex-sema"
	// ImplRWMutexSema: the same with a sync.RWMutex's write lock.
	ImplRWMutexSema = "rwmutex-sema"
	// ImplWaitGroup: the wait is WaitGroup.Wait on a count of 1, the wake
	// its Done.
	ImplWaitGroup = "waitgroup"
	// KindGoroutine is Config.Kind of the goroutine-only rows (chan and
	// cond are kind goroutine too, through their parkers.Backend).
	KindGoroutine = "goroutine"
)

// goroutineImpls are the implementations only goroutine participants run
// (a sync.Mutex unlocked by another thread is legal Go, but on two locked
// threads it only repeats chan's thread hand-off).
func goroutineImpls() []e12Impl {
	return []e12Impl{
		{name: ImplMutexSema, kind: KindGoroutine, sleeps: true, goroutinesOnly: true,
			summary: "sync.Mutex as a binary semaphore between goroutines: the waiter Locks, the peer's Unlock wakes it (runtime sema.go semrelease1, no handoff before starvation mode)"},
		{name: ImplRWMutexSema, kind: KindGoroutine, sleeps: true, goroutinesOnly: true,
			summary: "sync.RWMutex's write lock as a binary semaphore between goroutines (its writer semaphore, sema.go)"},
		{name: ImplWaitGroup, kind: KindGoroutine, sleeps: true, goroutinesOnly: true,
			summary: "sync.WaitGroup between goroutines: Wait on a count of 1, the peer's Done wakes it (sema.go semrelease)"},
	}
}

// threadsOnly is why im cannot run between plain goroutines ("" when it
// can): a thread parker blocks the thread and wakes that thread, and a
// goroutine does not own one; C runs in C threads; a busy wait between
// goroutines measures the scheduler's preemption (10 ms), not a wake.
func threadsOnly(im e12Impl) string {
	switch {
	case im.kind == KindCRef:
		return "the C reference runs in C threads, outside the Go scheduler"
	case im.busy:
		return "busy waiting on goroutines gives the P up only when preempted (10 ms), which is what it would measure"
	case im.name == ImplLot, im.kind == KindGoroutine, im.goroutinesOnly:
		return ""
	}
	return "it parks and wakes an OS thread, which needs a participant locked to its thread (runtime.LockOSThread)"
}

// threadsOnlyWhy is goroutinesOnly's reason under threads.
const goroutinesOnlyWhy = "a goroutine-only mechanism: run it with goroutines as participants"

// participantCatalog is latency's implementations for participants: under
// threads, every one of catalog's; under goroutines the same names, those
// that need a locked thread with their reason, then the goroutine-only
// ones.
func participantCatalog(participants string) driver.Catalog[e12Impl] {
	c := catalog()
	if participants == driver.Goroutines {
		c.Items = append(c.Items, goroutineImpls()...)
		return driver.ForParticipants(c, participants, threadsOnly)
	}
	return c
}

// GoroutineImpls describes the implementations latency runs only between
// goroutines (Impls lists them last, for `parkbench list` and the names a
// plugin may not take).
func GoroutineImpls() []driver.ImplInfo {
	var out []driver.ImplInfo
	for _, im := range goroutineImpls() {
		info := im.info()
		info.Summary = "--participants=goroutines only: " + info.Summary
		info.GoroutinesOnly = true
		out = append(out, info)
	}
	return out
}
