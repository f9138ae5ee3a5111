package wake

import (
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// info is what a listing shows of an implementation: its benches first.
func (im implSpec) info() driver.ImplInfo {
	var bs []string
	for _, b := range Benches {
		if im.offers(b) {
			bs = append(bs, b)
		}
	}
	return driver.ImplInfo{Name: im.name, Kind: im.kind, Summary: "[" + strings.Join(bs, ", ") + "] " + im.summary, Why: driver.Why(im.unavailable)}
}

// catalog is wake's implementations.
func catalog() driver.Catalog[implSpec] {
	return driver.Catalog[implSpec]{Items: append(slices.Clone(allImpls), extImpls()...), Info: implSpec.info}
}

// ImplNames returns every --impl name, in order.
func ImplNames() []string { return catalog().Names() }

// Impls describes every implementation for `parkbench list`, with the
// benches it has.
func Impls() []driver.ImplInfo { return catalog().Infos() }
