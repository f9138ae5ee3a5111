//go:build lotdeadlock && !amd64 && !arm64

package lot

// goroutineKey identifies the calling goroutine for the deadlock
// detector's records. Without an assembly stub for this architecture
// (deadlock_getg.go) it is the goroutine id (goroutineID: about 4 µs).
func goroutineKey() uintptr { return goroutineID() }

// deadlockForget: goroutine ids are never reused, so a record is deleted
// once empty.
const deadlockForget = true
