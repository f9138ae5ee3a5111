//go:build !windows

package monoclock

import _ "unsafe" // for go:linkname

// Nanotime is the runtime's monotonic clock. runtime.nanotime is one of the
// runtime symbols the Go team keeps linkname-able on purpose ("widely used
// packages access it using linkname ... do not remove or change the type
// signature").
//
//go:linkname Nanotime runtime.nanotime
func Nanotime() int64

// Source names the clock, for results.
const Source = "runtime.nanotime (CLOCK_MONOTONIC / mach_absolute_time)"
