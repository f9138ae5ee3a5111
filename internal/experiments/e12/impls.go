package e12

import (
	"errors"
	"fmt"
	"strings"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/parkers"
)

// E12 implementation names beyond the parker backends.
const (
	ImplLot     = "lot"      // parking_lot_core Park / UnparkOne
	ImplCFutex  = "c-futex"  // C reference, raw futex
	ImplCSpin   = "c-spin"   // C reference, busy wait
	ImplGoFutex = "go-futex" // Go twin of c-futex: same protocol, no parker
	ImplGoSpin  = "go-spin"  // Go twin of c-spin
	ImplAll     = "all"

	// KindLot and KindCRef are Config.Kind values of the non-backend
	// implementations.
	KindLot  = "lot"
	KindCRef = "c-reference"
	KindTwin = "go-reference"
	// KindReference is selfwake's syscall row.
	KindReference = "reference"
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
	// why: the reason it is unavailable here, nil when available.
	why     error
	backend parkers.Backend
	// cmode is the C reference's mode (KindCRef rows only).
	cmode cref.Mode
	// summary is one line for `parkbench list`.
	summary string
}

// e12Impls lists every implementation in list order: the parker backends,
// then lot, the Go twins of the C reference, then the C reference.
func e12Impls() []e12Impl {
	var out []e12Impl
	for _, b := range parkers.All() {
		im := e12Impl{name: b.Name, kind: string(b.Kind), sleeps: b.Sleeps, backend: b, summary: b.Summary}
		im.busy = !b.Sleeps && (b.Name == parkers.NameSpin || b.Name == parkers.NameGeneric)
		im.raw = parkers.IsRaw(b.Name)
		if b.Name == parkers.NameWasm {
			im.never = "parking_lot's wasm backend (no atomics) aborts the thread on any park, by design; never run"
		}
		if w := b.Why(); w != "" {
			im.why = errors.New(w)
		} else if b.NewThread == nil && b.NewToken == nil {
			im.why = errors.New("backend has no constructor")
		}
		out = append(out, im)
	}
	out = append(out,
		e12Impl{name: ImplLot, kind: KindLot, sleeps: true,
			summary: "parking_lot_core port: Park (validate checks the flag) / UnparkOne on the hash table of buckets, over the default parker (LotParker picks another)"},
		e12Impl{name: ImplGoFutex, kind: KindTwin, sleeps: true, why: twinAvailable(),
			summary: "Go twin of c-futex: the C loop's FUTEX_WAIT/WAKE_PRIVATE protocol in Go, no parker"},
		e12Impl{name: ImplGoSpin, kind: KindTwin, busy: true, why: twinAvailable(),
			summary: "Go twin of c-spin: busy-waiting on the flag in Go, no parker"},
	)
	// The C floors of this OS (c-futex on Linux, c-ulock on darwin; c-spin
	// everywhere cgo runs).
	for _, f := range cref.Floors() {
		out = append(out, e12Impl{name: f.Name, kind: KindCRef, sleeps: f.Sleeps, busy: !f.Sleeps,
			why: cref.Available(), summary: f.Summary, cmode: f.Mode})
	}
	return out
}

// info is im for listings; Why joins "never run" and "not available here".
func (im e12Impl) info() driver.ImplInfo {
	info := driver.ImplInfo{Name: im.name, Kind: im.kind, Summary: im.summary, Why: im.never}
	if info.Why == "" && im.why != nil {
		info.Why = im.why.Error()
	}
	return info
}

// Impls describes every implementation latency accepts, in list order.
func Impls() []driver.ImplInfo {
	var out []driver.ImplInfo
	for _, im := range e12Impls() {
		out = append(out, im.info())
	}
	return out
}

// SelfwakeImpls describes every implementation selfwake accepts: the
// syscall reference row, then latency's.
func SelfwakeImpls() []driver.ImplInfo {
	return append([]driver.ImplInfo{{Name: ImplSyscall, Kind: KindReference,
		Summary: "one trivial syscall (getppid) per pair: the least any kernel-side wake path pays"}}, Impls()...)
}

// ImplNames returns every E12 implementation name (for help and errors).
func ImplNames() []string {
	var names []string
	for _, im := range e12Impls() {
		names = append(names, im.name)
	}
	return names
}

// resolveImpls turns the user's --impl list into implementations. An
// explicit name that is unknown, unavailable or never run is an
// OptionError; under "all" the unavailable ones are skipped with a warning
// and the never-run ones with a note.
func resolveImpls(names []string) (impls []e12Impl, warnings, notes []string, err error) {
	all := e12Impls()
	byName := map[string]e12Impl{}
	for _, im := range all {
		byName[im.name] = im
	}
	if len(names) == 0 {
		names = []string{ImplAll}
	}
	seen := map[string]bool{}
	add := func(im e12Impl) {
		if !seen[im.name] {
			seen[im.name] = true
			impls = append(impls, im)
		}
	}
	for _, n := range names {
		if n == ImplAll {
			for _, im := range all {
				switch {
				case im.never != "":
					notes = append(notes, fmt.Sprintf("%s skipped: %s", im.name, im.never))
				case im.why != nil:
					warnings = append(warnings, fmt.Sprintf("%s skipped: not available here: %v", im.name, im.why))
				default:
					add(im)
				}
			}
			continue
		}
		im, ok := byName[n]
		if !ok {
			return nil, nil, nil, driver.Bad("Impls", "unknown implementation %q; valid names: %s, or %s", n, strings.Join(ImplNames(), ", "), ImplAll)
		}
		if im.never != "" {
			return nil, nil, nil, driver.Bad("Impls", "implementation %q is not run: %s", n, im.never)
		}
		if im.why != nil {
			return nil, nil, nil, driver.Bad("Impls", "implementation %q is not available here: %v", n, im.why)
		}
		add(im)
	}
	return impls, warnings, notes, nil
}

// FirstAvailable returns the first of names that runs here ("" if none):
// a Linux name first, then the other platforms' equivalents, so that one
// call picks a sleeping parker on any OS.
func FirstAvailable(names ...string) string {
	for _, n := range names {
		for _, im := range e12Impls() {
			if im.name == n && im.why == nil && im.never == "" {
				return n
			}
		}
	}
	return ""
}
