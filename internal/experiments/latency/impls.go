package latency

import (
	"unsafe"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/parkers"
)

// E12 implementation names beyond the parker backends.
const (
	ImplLot     = "lot"      // parking_lot_core Park / UnparkOne
	ImplCFutex  = "c-futex"  // C reference, raw futex
	ImplCSpin   = "c-spin"   // C reference, busy wait
	ImplGoFutex = "go-futex" // Go twin of c-futex: same protocol, no parker
	ImplGoSpin  = "go-spin"  // Go twin of c-spin
	// ImplSpinOneLine is spin's ThreadParker protocol with the parker's
	// word on the flag's cache line (oneline.go).
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
	// goroutinesOnly: runs only between plain goroutines (goroutines.go).
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
	twinWhy := errText(twinAvailable())
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
