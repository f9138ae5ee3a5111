//go:build !parkchaos

package chaos

// Enabled reports whether fault injection is compiled in.
const Enabled = false

// Point marks a critical point; a no-op without the parkchaos tag.
func Point(name string) {}

// Injected returns how many faults were injected (always 0 here).
func Injected() uint64 { return 0 }
