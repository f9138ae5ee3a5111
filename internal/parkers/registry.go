package parkers

import (
	"fmt"
	"strings"
	"sync"
)

// Backend describes one parker implementation and how to build it.
type Backend struct {
	// Name is the --impl name users type.
	Name string
	// Kind says which constructor is set and at what level it parks.
	Kind Kind
	// Summary is one line for `parkbench list`.
	Summary string
	// Sleeps is true when a park blocks in the kernel (or the Go
	// scheduler); false for busy-waiting and yielding backends.
	Sleeps bool
	// CheapToConstruct mirrors parking_lot_core's IS_CHEAP_TO_CONSTRUCT.
	CheapToConstruct bool
	// Unavailable returns nil when the backend runs here, or an error that
	// says why it does not (wrong OS, missing cgo, missing DLL export).
	Unavailable func() error
	// NewThread builds a ThreadParker (Kind == KindThread, and goroutine
	// backends that implement ThreadParker).
	NewThread func() ThreadParker
	// NewToken builds a TokenParker (Kind == KindToken, and goroutine
	// backends that implement TokenParker).
	NewToken func() TokenParker
}

// Available reports whether the backend runs here.
func (b Backend) Available() bool { return b.Unavailable == nil || b.Unavailable() == nil }

// Why returns the reason the backend does not run here, or "".
func (b Backend) Why() string {
	if b.Unavailable == nil {
		return ""
	}
	if err := b.Unavailable(); err != nil {
		return err.Error()
	}
	return ""
}

// provision is what one build provides for a backend of the table.
type provision struct {
	unavailable func() error
	newThread   func() ThreadParker
	newToken    func() TokenParker
}

// The registry holds the backends of this tree only; the parkers from
// outside it (a plugin's, a Go program's) are internal/ext's, whose
// Parkers and Parker list and find both.
var (
	regMu    sync.Mutex
	provided = map[string]provision{}
)

// provide attaches this build's implementation of backend name (a row of
// backends): its constructors (nil where it cannot run) and, where the
// machine decides, why it does not run (nil: it runs). A token backend gets
// its ThreadParker from ThreadFromToken. Per-OS files call it from init;
// providing a name twice, or one not in the table, panics.
func provide(name string, unavailable func() error, newThread func() ThreadParker, newToken func() TokenParker) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := provided[name]; dup {
		panic("parkers: backend provided twice: " + name)
	}
	if _, ok := rowOf(name); !ok {
		panic("parkers: backend not in the table: " + name)
	}
	if newThread == nil && newToken != nil {
		newThread = ThreadFromToken(newToken)
	}
	provided[name] = provision{unavailable, newThread, newToken}
}

func rowOf(name string) (row, bool) {
	for _, r := range backends {
		if r.Name == name {
			return r, true
		}
	}
	return row{}, false
}

// backend is row r as it stands in this build: with what was provided, or
// unavailable for the row's reason (cgo's, where it would run through cgo).
// The caller holds regMu.
func (r row) backend() Backend {
	b := r.Backend
	if p, ok := provided[b.Name]; ok {
		b.Unavailable, b.NewThread, b.NewToken = p.unavailable, p.newThread, p.newToken
		return b
	}
	if r.cgoHere != nil && r.cgoHere() {
		b.Unavailable = unavailable("needs cgo (CGO_ENABLED=1 and a C compiler): " + r.cgoWhy)
	} else {
		b.Unavailable = onlyOn(r.notHere)
	}
	return b
}

// All returns every backend in list order (the table's), with what runs
// here.
func All() []Backend {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]Backend, 0, len(backends))
	for _, r := range backends {
		out = append(out, r.backend())
	}
	return out
}

// Names returns every backend name in list order.
func Names() []string {
	regMu.Lock()
	defer regMu.Unlock()
	names := make([]string, 0, len(backends))
	for _, r := range backends {
		names = append(names, r.Name)
	}
	return names
}

// Known reports whether name is a backend of the table.
func Known(name string) bool {
	_, ok := rowOf(name)
	return ok
}

// lookup finds a backend by name, as it stands in this build.
func lookup(name string) (Backend, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	r, ok := rowOf(name)
	if !ok {
		return Backend{}, false
	}
	return r.backend(), true
}

// Lookup finds a backend by name. An unknown name gives an error listing the
// valid names; a backend that does not run here gives an error saying why.
func Lookup(name string) (Backend, error) {
	b, ok := lookup(name)
	if !ok {
		return Backend{}, fmt.Errorf("unknown parker %q; valid names: %s", name, strings.Join(Names(), ", "))
	}
	if why := b.Why(); why != "" {
		return b, fmt.Errorf("parker %q is not available here: %s", name, why)
	}
	return b, nil
}
