//go:build !linux

package machine

// FutexHash is Linux's futex hash mode; there is none on this OS.
func FutexHash() (mode string, slots int) { return "", 0 }
