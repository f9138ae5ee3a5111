//go:build linux

package stress

import (
	"testing"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/futexsync"
)

// TestPIMutexes: the priority-inheriting locks (pi-futex, pthread-pi)
// under the mutual-exclusion checker: every worker is a goroutine locked to
// its OS thread (the harness's), as the PI protocol requires (the kernel
// checks the owner by TID on FUTEX_UNLOCK_PI). Plain Lock/Unlock only:
// neither has TryLockFor, Bump or a fair unlock.
func TestPIMutexes(t *testing.T) {
	for _, p := range procsMatrix {
		withProcs(t, p, func(t *testing.T) {
			stressMutex(t, "pi-futex", new(futexsync.PIMutex), 6)
			if cref.LockAvailable() != nil {
				return
			}
			m, err := cref.NewPthreadPIMutex()
			if err != nil {
				t.Fatal(err)
			}
			defer m.Free()
			stressMutex(t, "pthread-pi", m, 6)
		})
	}
}
