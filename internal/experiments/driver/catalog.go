package driver

import (
	"fmt"
	"slices"
	"strings"
)

// Catalog is the implementations one experiment accepts, in list order,
// and the one way their names are read: Resolve gives every experiment the
// same meaning of an empty list and of All, the same messages, and the same
// treatment of names that do not run here.
//
// T is the experiment's own description of an implementation; Info reads
// what a listing shows of it. Nothing is cached: Info is called on every
// use, so a Why computed from the machine (a cgo build, an OS feature)
// is always current.
type Catalog[T any] struct {
	// Noun is what a name names, for messages ("implementation" when
	// empty; stacks: "mechanism").
	Noun string
	// Items are every implementation, in list and run order.
	Items []T
	// Info describes one item: its name (what --impl takes), its kind
	// (results.Config.Kind), a one-line summary, and Why it does not run
	// here ("" when it does).
	Info func(T) ImplInfo
	// Never, if set, says why an item is never run on any machine ("" for
	// the others): parking_lot's wasm parker aborts the thread on any park,
	// by design. Such an item is listed (Why is Never), refused by name,
	// and skipped under All with a note rather than a warning.
	Never func(T) string
	// Aliases name groups of items (timeout's "lot": its three lot-*
	// mechanisms); a group's members must be items.
	Aliases []Alias
}

// Alias is a name for a group of implementations.
type Alias struct {
	Name  string
	Names []string
}

// Selection is what Resolve chose.
type Selection[T any] struct {
	// Items are the chosen implementations: in the order named, All
	// expanding to every runnable item in list order; each at most once.
	Items []T
	// Unavailable names each item skipped under All because it does not
	// run here (another OS's API), with why; Notes says so in one line
	// (list says each why: a run on Linux need not read four lines about
	// Windows and macOS parkers), and each item skipped because it never
	// runs. Warnings is for what the caller adds.
	Unavailable     []string
	Warnings, Notes []string
	// Explicit is true when every item was named (neither All nor an
	// empty list).
	Explicit bool
}

func (c Catalog[T]) noun() string {
	if c.Noun == "" {
		return "implementation"
	}
	return c.Noun
}

func (c Catalog[T]) never(it T) string {
	if c.Never == nil {
		return ""
	}
	return c.Never(it)
}

// Infos describes every item for listings; Why joins "never run" and "not
// available here".
func (c Catalog[T]) Infos() []ImplInfo {
	out := make([]ImplInfo, 0, len(c.Items))
	for _, it := range c.Items {
		info := c.Info(it)
		if n := c.never(it); n != "" {
			info.Why = n
		}
		out = append(out, info)
	}
	return out
}

// Names lists every item's name, in list order (aliases not included).
func (c Catalog[T]) Names() []string {
	out := make([]string, 0, len(c.Items))
	for _, it := range c.Items {
		out = append(out, c.Info(it).Name)
	}
	return out
}

// valid is the list an unknown name is answered with.
func (c Catalog[T]) valid() string {
	names := c.Names()
	for _, a := range c.Aliases {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ") + ", or " + All
}

// Resolve reads a list of names given for field (the Options field, e.g.
// "Impls"; errors are *OptionError on it):
//
//   - an empty list means All;
//   - All is every item that runs here, in list order; an item that does
//     not run here is skipped with a warning, one that never runs with a
//     note;
//   - a name is one item, an alias its group; an unknown name is refused
//     with the valid ones, a name that does not run here with why, a name
//     given twice as a mistake (each name is one configuration).
//
// The result has each item once: All and a name it already includes do not
// run it twice. A selection of none (every item skipped) is refused.
func (c Catalog[T]) Resolve(field string, names []string) (Selection[T], error) {
	var sel Selection[T]
	if len(names) == 0 {
		names = []string{All}
	}
	sel.Explicit = !slices.Contains(names, All)
	chosen := map[string]bool{}
	add := func(it T) {
		if n := c.Info(it).Name; !chosen[n] {
			chosen[n] = true
			sel.Items = append(sel.Items, it)
		}
	}
	named := map[string]bool{}
	for _, n := range names {
		if named[n] {
			return sel, Bad(field, "%s %q is named twice; each is one configuration, give it once", c.noun(), n)
		}
		named[n] = true
		if n == All {
			var heads []string
			skipped := map[string][]string{}
			for _, it := range c.Items {
				info := c.Info(it)
				switch never := c.never(it); {
				case never != "":
					sel.Notes = append(sel.Notes, fmt.Sprintf("%s skipped: %s", info.Name, never))
				case info.Why != "":
					sel.Unavailable = append(sel.Unavailable, fmt.Sprintf("%s: %s", info.Name, info.Why))
					// Grouped by the reason's head ("Windows only").
					head, _, _ := strings.Cut(info.Why, ": ")
					if !slices.Contains(heads, head) {
						heads = append(heads, head)
					}
					skipped[head] = append(skipped[head], info.Name)
				default:
					add(it)
				}
			}
			if len(heads) > 0 {
				var parts []string
				for _, h := range heads {
					parts = append(parts, h+": "+strings.Join(skipped[h], ", "))
				}
				sel.Notes = append(sel.Notes, "skipped, not available here ('parkbench list' says why): "+strings.Join(parts, "; "))
			}
			continue
		}
		group := []string{n}
		for _, a := range c.Aliases {
			if a.Name == n {
				group = a.Names
			}
		}
		for _, m := range group {
			it, ok := c.lookup(m)
			if !ok {
				return sel, Bad(field, "unknown %s %q; valid names: %s", c.noun(), m, c.valid())
			}
			if never := c.never(it); never != "" {
				return sel, Bad(field, "%s %q is not run: %s", c.noun(), m, never)
			}
			if why := c.Info(it).Why; why != "" {
				return sel, Bad(field, "%s %q is not available here: %s", c.noun(), m, why)
			}
			add(it)
		}
	}
	if len(sel.Items) == 0 {
		return sel, Bad(field, "no %s is available here: %s", c.noun(), strings.Join(sel.Unavailable, "; "))
	}
	return sel, nil
}

// Lookup returns the item named name.
func (c Catalog[T]) lookup(name string) (T, bool) {
	for _, it := range c.Items {
		if c.Info(it).Name == name {
			return it, true
		}
	}
	var zero T
	return zero, false
}

// Runs reports whether the item named name runs here.
func (c Catalog[T]) Runs(name string) bool {
	it, ok := c.lookup(name)
	return ok && c.never(it) == "" && c.Info(it).Why == ""
}

// Why is the reason unavailable gives ("" when it is nil or says nothing):
// for implementations whose availability is a function of the machine.
func Why(unavailable func() error) string {
	if unavailable == nil {
		return ""
	}
	if err := unavailable(); err != nil {
		return err.Error()
	}
	return ""
}
