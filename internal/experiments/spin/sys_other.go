//go:build !linux

package spin

import "sync/atomic"

// Off Linux no row runs (driver.NeedFutex refuses each): these are never
// called.

func futexWait(w *atomic.Int32, val int32) { panic("spin: futexes are Linux only") }
func futexWake(w *atomic.Int32, n int32)   { panic("spin: futexes are Linux only") }
func threadCPU() int64                     { return 0 }
func threadSwitches() (vol, invol int64)   { return 0, 0 }
