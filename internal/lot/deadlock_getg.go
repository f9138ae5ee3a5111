//go:build lotdeadlock && (amd64 || arm64)

package lot

// goroutineKey identifies the calling goroutine for the deadlock
// detector's records: the address of its runtime descriptor (the g), read
// from where the runtime keeps it (deadlock_getg_amd64.s: TLS;
// deadlock_getg_arm64.s: register R28), as github.com/petermattis/goid and
// the runtime's own assembly do. A few nanoseconds, against about 4 µs for
// goroutineID's runtime.Stack. The address is only compared, never
// dereferenced; g structures are never freed or moved, and the runtime
// gives an exited goroutine's g to a new goroutine (deadlock_on.go says
// what that means for the records).
func goroutineKey() uintptr

// deadlockForget: descriptors are reused, so records are kept.
const deadlockForget = false
