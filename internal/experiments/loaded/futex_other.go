//go:build !linux

package loaded

// futexOK says the futex mechanisms run here: they do not (no futexes).
const futexOK = false

func futexWait(*slot) { panic("loaded: futexes exist only on Linux") }
func futexWake(*slot) { panic("loaded: futexes exist only on Linux") }
