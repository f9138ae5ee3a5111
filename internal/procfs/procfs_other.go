//go:build !linux

package procfs

// Read returns ErrUnsupported: there is no /proc/self/task here.
func Read(tid int) (Task, error) { return Task{Tid: tid}, ErrUnsupported }

// State returns ErrUnsupported.
func State(tid int) (byte, error) { return 0, ErrUnsupported }

// Tasks returns ErrUnsupported.
func Tasks() ([]int, error) { return nil, ErrUnsupported }

// Maps returns ErrUnsupported.
func Maps() ([]Mapping, error) { return nil, ErrUnsupported }

// ReadMem returns ErrUnsupported.
func ReadMem(addr uint64, n int) ([]byte, error) { return nil, ErrUnsupported }
