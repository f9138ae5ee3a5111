//lint:file-ignore SA2001 empty lock/unlock pairs are what is measured

package lot

import (
	"runtime"
	"testing"
)

// BenchmarkRwLockUncontended measures the uncontended paths that carry a
// misuse check besides BenchmarkLockHooks' (Lock/Unlock, RLock/RUnlock),
// to compare with the code before the checks (123a423) through benchstat.
func BenchmarkRwLockUncontended(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.Run("Upgradable", func(b *testing.B) {
		var rw RwLock
		for i := 0; i < b.N; i++ {
			rw.LockUpgradable()
			rw.UnlockUpgradable()
		}
	})
	b.Run("UpgradeDowngrade", func(b *testing.B) {
		var rw RwLock
		for i := 0; i < b.N; i++ {
			rw.LockUpgradable()
			rw.Upgrade()
			rw.Downgrade()
			rw.RUnlock()
		}
	})
	b.Run("DowngradeToUpgradable", func(b *testing.B) {
		var rw RwLock
		for i := 0; i < b.N; i++ {
			rw.Lock()
			rw.DowngradeToUpgradable()
			rw.UnlockUpgradable()
		}
	})
	b.Run("ReadBesideUpgradable", func(b *testing.B) {
		var rw RwLock
		rw.LockUpgradable()
		for i := 0; i < b.N; i++ {
			rw.RLock()
			rw.RUnlock()
		}
		rw.UnlockUpgradable()
	})
}
