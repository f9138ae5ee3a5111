//go:build !linux

package wake

import (
	"runtime"
	"sync/atomic"
)

const noFutex = "wake: futexes exist only on Linux; this is " + runtime.GOOS

type scopeT int

func scope(bool) scopeT                                   { return 0 }
func waitWord(*atomic.Int32, int32, scopeT) bool          { panic(noFutex) }
func wakeWord(*atomic.Int32, int, scopeT) int             { panic(noFutex) }
func requeueWord(_, _ *atomic.Int32, _ int, _ scopeT) int { panic(noFutex) }
func waitFails(*atomic.Int32, scopeT) bool                { panic(noFutex) }
