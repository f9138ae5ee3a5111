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

// Refused is a registered implementation whose parker failed its
// conformance check: that parker is not measured (ext.Impl.Backend says
// why), its other kinds are.
type Refused struct {
	Impl ext.Impl
	Err  error
}

// Note says what was refused and what still runs.
func (r Refused) Note() string {
	x := r.Impl
	rest := "nothing else of it runs"
	if x.NewLock != nil {
		rest = "its mutex still runs (lock, and herd and wake with its condvar)"
	}
	return fmt.Sprintf("%s: the parker of implementation %q failed the conformance check, so it is not measured "+
		"(%s): %v", x.Origin, x.Name, rest, r.Err)
}

// CheckExternal runs each registered implementation's conformance check
// (a parker's: lost wakeups, tokens, timeouts, tokenless returns) once,
// before anything is measured, and returns those that failed.
func CheckExternal() []Refused {
	var out []Refused
	for _, x := range ext.All() {
		if err := ext.Checked(x); err != nil {
			out = append(out, Refused{x, err})
		}
	}
	return out
}
