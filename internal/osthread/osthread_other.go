//go:build !linux

package osthread

// CPU returns -1: not known on this OS.
func CPU() int { return -1 }

// Pin is not supported on this OS.
func Pin(cpus ...int) error { return ErrUnsupported }

// Affinity is not supported on this OS.
func Affinity() ([]int, error) { return nil, ErrUnsupported }

// ThreadUsage is not supported on this OS.
func ThreadUsage() (Rusage, error) { return Rusage{}, ErrUnsupported }

// ProcessUsage is not supported on this OS.
func ProcessUsage() (Rusage, error) { return Rusage{}, ErrUnsupported }

// State is not supported on this OS.
func State(tid int) (byte, error) { return 0, ErrUnsupported }
