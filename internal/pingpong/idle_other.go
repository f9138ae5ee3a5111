//go:build !linux

package pingpong

import "time"

// idle sleeps for d. Without nanosleep on a locked thread this is
// time.Sleep: the goroutine parks, and with LockOSThread its thread sleeps
// in the runtime until the timer fires.
func idle(d time.Duration) { time.Sleep(d) }
