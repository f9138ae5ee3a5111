package experiments

import (
	"errors"
	"fmt"
	"strings"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/lot"
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
}

// e12Impls lists every implementation in list order: the parker backends,
// then lot, the Go twins of the C reference, then the C reference.
func e12Impls() []e12Impl {
	var out []e12Impl
	for _, b := range parkers.All() {
		im := e12Impl{name: b.Name, kind: string(b.Kind), sleeps: b.Sleeps, backend: b}
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
		e12Impl{name: ImplLot, kind: KindLot, sleeps: true},
		e12Impl{name: ImplGoFutex, kind: KindTwin, sleeps: true, why: twinAvailable()},
		e12Impl{name: ImplGoSpin, kind: KindTwin, busy: true, why: twinAvailable()},
		e12Impl{name: ImplCFutex, kind: KindCRef, sleeps: true, why: cref.Available()},
		e12Impl{name: ImplCSpin, kind: KindCRef, busy: true, why: cref.Available()},
	)
	return out
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
			return nil, nil, nil, badOption("unknown implementation %q; valid names: %s, or %s", n, strings.Join(ImplNames(), ", "), ImplAll)
		}
		if im.never != "" {
			return nil, nil, nil, badOption("implementation %q is not run: %s", n, im.never)
		}
		if im.why != nil {
			return nil, nil, nil, badOption("implementation %q is not available here: %v", n, im.why)
		}
		add(im)
	}
	return impls, warnings, notes, nil
}

// checkLotParker validates --lot-parker: a known, available backend the
// parking lot can run on (what lot.SetBackend accepts).
func checkLotParker(name string) (parkers.Backend, error) {
	if name == "" {
		return lot.CurrentBackend(), nil
	}
	b, err := parkers.Lookup(name)
	if err != nil {
		return b, badOption("--lot-parker: %v", err)
	}
	if b.NewThread == nil || (b.Kind != parkers.KindThread && b.Kind != parkers.KindGoroutine) {
		return b, badOption("--lot-parker: parker %q is a %s parker; the lot needs a thread parker", name, b.Kind)
	}
	if name == parkers.NameWasm {
		return b, badOption("--lot-parker: the wasm backend aborts on any park, by design")
	}
	return b, nil
}

// withLotBackend runs fn with b under the parking lot and puts the previous
// backend back afterwards (parked threads keep their own parker, so the
// switch is safe at any time; see lot.SetBackend).
func withLotBackend(b parkers.Backend, fn func() error) error {
	prev := lot.CurrentBackend()
	if err := lot.SetBackend(b); err != nil {
		return err
	}
	defer lot.SetBackend(prev)
	return fn()
}
