//go:build !lotdeadlock

//lint:file-ignore SA2001 empty lock/unlock pairs are what is measured

package lot

import (
	"testing"
	"unsafe"
)

// Without the lotdeadlock tag the detector costs nothing: the threadData
// field is empty, and the locks' hooks allocate nothing (with the tag,
// every hook looks up the goroutine's record; BenchmarkLockHooks compares).
func TestDeadlockHooksFree(t *testing.T) {
	participant(t)
	if n := unsafe.Sizeof(deadlockTD{}); n != 0 {
		t.Fatalf("deadlockTD is %d bytes without lotdeadlock", n)
	}
	var m Mutex
	var rw RwLock
	var r ReentrantMutex
	var o Once
	assertNoAllocs(t, "RwLock Lock/Unlock", 1000, func() { rw.Lock(); rw.Unlock() })
	assertNoAllocs(t, "RwLock RLock/RUnlock", 1000, func() { rw.RLock(); rw.RUnlock() })
	assertNoAllocs(t, "RwLock upgradable, upgrade, downgrade", 1000, func() {
		rw.LockUpgradable()
		rw.Upgrade()
		rw.DowngradeToUpgradable()
		rw.UnlockUpgradable()
	})
	assertNoAllocs(t, "Mutex Lock/Unlock", 1000, func() { m.Lock(); m.Unlock() })
	assertNoAllocs(t, "ReentrantMutex Lock/Lock/Unlock/Unlock", 1000, func() { r.Lock(); r.Lock(); r.Unlock(); r.Unlock() })
	o.CallOnce(func() {})
	assertNoAllocs(t, "Once CallOnce, done", 1000, func() { o.CallOnce(func() {}) })
}

// heldKeyCount is the number of keys the detector records for the calling
// goroutine: none without the detector (deadlock_test.go has the real one).
func heldKeyCount() int { return 0 }
