//go:build !linux

package loaded

func futexWait(*slot) { panic("loaded: futexes exist only on Linux") }
func futexWake(*slot) { panic("loaded: futexes exist only on Linux") }
