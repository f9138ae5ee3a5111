package driver

import (
	"errors"

	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/parkers"
)

// LotParker validates the name of a parker backend to put under the
// parking lot (Options.LotParker): "" is the lot's current one (normally
// the platform default); otherwise a known, available thread or goroutine
// parker (built-in, or registered: internal/ext), never wasm (it aborts on any park, by design). Errors are
// *OptionError for field.
func LotParker(field, name string) (parkers.Backend, error) {
	if name == "" {
		return lot.CurrentBackend(), nil
	}
	b, err := ext.Parker(name)
	if err != nil {
		return b, Bad(field, "%v", err)
	}
	if b.NewThread == nil || (b.Kind != parkers.KindThread && b.Kind != parkers.KindGoroutine) {
		return b, Bad(field, "parker %q is a %s parker; the lot needs a thread parker", name, b.Kind)
	}
	if name == parkers.NameWasm {
		return b, Bad(field, "the wasm backend aborts on any park, by design")
	}
	return b, nil
}

// WithLotParker runs fn with b under the parking lot and puts the previous
// backend back afterwards. Parked threads keep the parker they parked on,
// so the switch is safe at any time (see lot.SetBackend in
// internal/lot/backend.go). A failed restore is returned with fn's error.
func WithLotParker(b parkers.Backend, fn func() error) error {
	prev := lot.CurrentBackend()
	if err := lot.SetBackend(b); err != nil {
		return err
	}
	err := fn()
	return errors.Join(err, lot.SetBackend(prev))
}
