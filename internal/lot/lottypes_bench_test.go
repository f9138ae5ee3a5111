//lint:file-ignore SA2001 empty lock/unlock pairs are what is measured

package lot

import (
	"runtime"
	"testing"
)

// BenchmarkLockHooks measures the uncontended paths that carry the
// deadlock detector's hooks: run it with and without -tags lotdeadlock
// to see what the detector costs (without the tag the hooks are empty).
func BenchmarkLockHooks(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.Run("Mutex", func(b *testing.B) {
		var m Mutex
		for i := 0; i < b.N; i++ {
			m.Lock()
			m.Unlock()
		}
	})
	b.Run("RwLockWrite", func(b *testing.B) {
		var rw RwLock
		for i := 0; i < b.N; i++ {
			rw.Lock()
			rw.Unlock()
		}
	})
	b.Run("RwLockRead", func(b *testing.B) {
		var rw RwLock
		for i := 0; i < b.N; i++ {
			rw.RLock()
			rw.RUnlock()
		}
	})
}

// BenchmarkRwLockReadParallel: readers on every P (the cache line of the
// state word is what they share).
func BenchmarkRwLockReadParallel(b *testing.B) {
	var rw RwLock
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rw.RLock()
			rw.RUnlock()
		}
	})
}

// BenchmarkReentrantMutex: each Lock and Unlock asks the OS for the thread
// id (threadid.go), one gettid(2) each on Linux.
func BenchmarkReentrantMutex(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var m ReentrantMutex
	for i := 0; i < b.N; i++ {
		m.Lock()
		m.Unlock()
	}
}
