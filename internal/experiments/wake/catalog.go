package wake

import (
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// ImplNames returns every --impl name, in order.
func ImplNames() []string {
	var names []string
	for _, im := range allImpls {
		names = append(names, im.name)
	}
	return names
}

// Impls describes every implementation for `parkbench list`, with the
// benches it has.
func Impls() []driver.ImplInfo {
	var out []driver.ImplInfo
	for _, im := range allImpls {
		var bs []string
		for _, b := range Benches {
			if im.offers(b) {
				bs = append(bs, b)
			}
		}
		out = append(out, driver.ImplInfo{Name: im.name, Kind: im.kind, Summary: "[" + strings.Join(bs, ", ") + "] " + im.summary, Why: im.why()})
	}
	return out
}

// lookupImpls resolves --impl names (empty, or all: every available one).
func lookupImpls(names []string) ([]implSpec, error) {
	all := len(names) == 0
	for _, n := range names {
		all = all || n == driver.All
	}
	if all {
		var out []implSpec
		for _, im := range allImpls {
			if im.why() == "" {
				out = append(out, im)
			}
		}
		return out, nil
	}
	var out []implSpec
	for _, n := range names {
		var found *implSpec
		for i := range allImpls {
			if allImpls[i].name == n {
				found = &allImpls[i]
			}
		}
		if found == nil {
			return nil, driver.Bad("Impls", "unknown wake implementation %q; valid: %s, or %s", n, strings.Join(ImplNames(), ", "), driver.All)
		}
		if why := found.why(); why != "" {
			return nil, driver.Bad("Impls", "wake implementation %q is not available here: %s", n, why)
		}
		out = append(out, *found)
	}
	return out, nil
}
