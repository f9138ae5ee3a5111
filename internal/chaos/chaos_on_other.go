//go:build parkchaos && !linux

package chaos

import "runtime"

// osYield has no portable thread yield outside Linux here; Gosched stands in.
func osYield() { runtime.Gosched() }
