//go:build !linux

package probe

import (
	"github.com/parkbench/parkbench/internal/results"
)

// Foreign is not measured on this OS.
type Foreign struct{}

// StartForeign starts a window (a no-op here).
func StartForeign() *Foreign { return &Foreign{} }

// Stop returns "not measured".
func (f *Foreign) Stop() *results.Foreign {
	return &results.Foreign{Fraction: -1, SameCPUFraction: -1}
}
