package latency

import (
	"unsafe"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/parkers"
)

// Impl is one E12 implementation (impls.go), as selfwake, which measures
// the same ones from the other side, reads it.
type Impl = e12Impl

// Name is the implementation's name (--impl).
func (im e12Impl) Name() string { return im.name }

// Kind is its results.Config.Kind.
func (im e12Impl) Kind() string { return im.kind }

// Sleeps: a wait blocks in the kernel (or the Go scheduler).
func (im e12Impl) Sleeps() bool { return im.sleeps }

// Backend is a parker backend's (zero for the other kinds).
func (im e12Impl) Backend() parkers.Backend { return im.backend }

// CMode is a C reference row's mode (KindCRef only).
func (im e12Impl) CMode() cref.Mode { return im.cmode }

// Plugin is a plugin implementation's struct pb_impl (its C row).
func (im e12Impl) Plugin() unsafe.Pointer { return im.plugin }

// Own is the loops a plugin's C row runs from the library itself (ABI
// version 2; zero for the function pointers' row and the other kinds).
func (im e12Impl) Own() ext.Loops { return im.own }

// OwnLoop is the "loop" parameter of a plugin's C row (ownLoop).
func (im e12Impl) OwnLoop(has bool) string { return im.ownLoop(has) }

// NewImpl is a row beside the catalog's (selfwake's syscall reference).
func NewImpl(name, kind, summary string) Impl {
	return e12Impl{name: name, kind: kind, summary: summary}
}

// Catalog is latency's implementations (every one of e12Impls).
func Catalog() driver.Catalog[Impl] { return catalog() }

// ThreadsOnly is why im cannot run between plain goroutines ("" when it
// can).
func ThreadsOnly(im Impl) string { return threadsOnly(im) }

// Resolve reads the implementation names and the lot's parker from c, as
// latency does.
func Resolve(c driver.Catalog[Impl], names []string, lotParker string) (driver.Selection[Impl], parkers.Backend, error) {
	return resolve(c, names, lotParker)
}
