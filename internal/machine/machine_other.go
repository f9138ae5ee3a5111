//go:build !linux

package machine

import "github.com/parkbench/parkbench/internal/results"

func describeOS(m *results.Machine) {}
