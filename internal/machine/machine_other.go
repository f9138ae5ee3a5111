//go:build !linux && !darwin && !windows

package machine

import "github.com/parkbench/parkbench/internal/results"

// describeOS reads nothing beyond what machine.Describe already has: this OS
// has no interface parkbench reads without exec.
func describeOS(m *results.Machine) {}
