//go:build !amd64

package lot

import "github.com/parkbench/parkbench/internal/parkers"

// cpuRelax is upstream's cpu_relax(n): n spin-loop hints. Here (every
// architecture but amd64, spinhint_amd64.go) it is parkers.CPURelax, an
// atomic load per hint: Go has no spin-loop intrinsic for user code, and
// this package has the instruction in assembly for amd64 only.
func cpuRelax(n int) { parkers.CPURelax(n) }
