//go:build !linux && !windows

package osthread

// Tid returns -1: no thread id this package can read without cgo.
func Tid() int { return -1 }
