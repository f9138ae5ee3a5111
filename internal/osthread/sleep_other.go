//go:build !linux

package osthread

import "time"

// Sleep sleeps d (time.Sleep: no thread-level sleep to reach here).
func Sleep(d time.Duration) { time.Sleep(d) }

// SetTimerSlack does nothing: no timer slack to set on this OS.
func SetTimerSlack(d time.Duration) error { return nil }
