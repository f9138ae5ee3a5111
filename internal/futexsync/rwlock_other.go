//go:build !linux

package futexsync

// RwLock is Rust std's futex RwLock; Linux only.
type RwLock struct{}

func (rw *RwLock) RLock()         { panic(notLinux) }
func (rw *RwLock) TryRLock() bool { panic(notLinux) }
func (rw *RwLock) RUnlock()       { panic(notLinux) }
func (rw *RwLock) Lock()          { panic(notLinux) }
func (rw *RwLock) TryLock() bool  { panic(notLinux) }
func (rw *RwLock) Unlock()        { panic(notLinux) }
