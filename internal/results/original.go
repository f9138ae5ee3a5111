package results

import "strings"

// The Go port of parking_lot and the original it ports, when the Rust
// originals are loaded as a plugin (docs/originals.md): report and compare
// put the original's rows right after the port's, so that each figure of
// lot has parking_lot's own below it.
const (
	// PortLot is the port's implementation name.
	PortLot = "lot"
	// OriginalLot is parking_lot_core's and parking_lot's own, as
	// rust/originals names it; its row from C threads is "c-" + it.
	OriginalLot = "rust-parking_lot"
	// KindCRef is the kind of a row measured on C threads.
	KindCRef = "c-reference"
)

// IsOriginal reports whether c is a row of the original name: its run from
// Go threads (impl name) or from C threads (kind c-reference, impl name or
// "c-"+name).
func IsOriginal(c *Config, name string) bool {
	if c.Kind == KindCRef {
		return c.Impl == name || c.Impl == "c-"+name
	}
	return c.Impl == name
}

// group is c's key without its implementation: the configuration the
// implementations share.
func group(c *Config) string { return strings.TrimPrefix(c.Key, c.Impl) }

// BesidePort returns cs with the original's rows (OriginalLot, from Go and
// from C threads) moved right after the port's row of the same group, in
// their own order; the rest keeps its order. cs itself is not modified; it
// is returned as is when nothing moves.
func BesidePort(cs []*Config) []*Config {
	orig := map[string][]*Config{}
	port := map[string]bool{}
	for _, c := range cs {
		switch {
		case IsOriginal(c, OriginalLot):
			orig[group(c)] = append(orig[group(c)], c)
		case c.Impl == PortLot:
			port[group(c)] = true
		}
	}
	moved := false
	for g := range orig {
		if port[g] {
			moved = true
		}
	}
	if !moved {
		return cs
	}
	out := make([]*Config, 0, len(cs))
	for _, c := range cs {
		g := group(c)
		if IsOriginal(c, OriginalLot) && port[g] {
			continue // placed after the port's row
		}
		out = append(out, c)
		if c.Impl == PortLot {
			out = append(out, orig[g]...)
		}
	}
	return out
}
