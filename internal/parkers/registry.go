package parkers

import (
	"fmt"
	"sort"
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
	// order sorts `parkbench list`.
	Order int
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

var (
	regMu    sync.Mutex
	registry = map[string]Backend{}
)

// Register adds a backend. Per-OS files call it from init, also for backends
// that are unavailable there (with Unavailable set), so the list is the same
// on every OS. Registering a name twice panics.
func Register(b Backend) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[b.Name]; dup {
		panic("parkers: backend registered twice: " + b.Name)
	}
	registry[b.Name] = b
}

// All returns every registered backend in list order.
func All() []Backend {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]Backend, 0, len(registry))
	for _, b := range registry {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Names returns every registered name in list order.
func Names() []string {
	var names []string
	for _, b := range All() {
		names = append(names, b.Name)
	}
	return names
}

// Lookup finds a backend by name. An unknown name gives an error listing the
// valid names; a backend that does not run here gives an error saying why.
func Lookup(name string) (Backend, error) {
	regMu.Lock()
	b, ok := registry[name]
	regMu.Unlock()
	if !ok {
		return Backend{}, fmt.Errorf("unknown parker %q; valid names: %s", name, strings.Join(Names(), ", "))
	}
	if why := b.Why(); why != "" {
		return b, fmt.Errorf("parker %q is not available here: %s", name, why)
	}
	return b, nil
}
