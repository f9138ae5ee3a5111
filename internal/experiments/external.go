package experiments

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/ext"
)

// Builtin reports whether any experiment lists an implementation named
// name (stacks' mechanisms included).
func Builtin(name string) bool {
	for _, e := range Registry {
		if e.Impls == nil {
			continue
		}
		for _, im := range e.Impls() {
			if im.Name == name {
				return true
			}
		}
	}
	return false
}

// AddExternal registers implementations from outside the tree (a plugin's,
// a Go program's) so that every experiment whose kind fits lists and runs
// them. A name that is bad, given twice, or a built-in's is refused and
// nothing is registered.
func AddExternal(impls ...ext.Impl) error { return ext.Register(Builtin, impls...) }

// CheckExternal runs each registered implementation's conformance check
// (a parker's: lost wakeups, tokens, timeouts) once, and refuses the first
// that fails, by name, before anything is measured.
func CheckExternal() error {
	for _, x := range ext.All() {
		if err := ext.Checked(x); err != nil {
			return fmt.Errorf("%s: implementation %q failed the parker conformance check, so it is not measured: %w",
				x.Origin, x.Name, err)
		}
	}
	return nil
}
