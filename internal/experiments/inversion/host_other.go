//go:build !linux

package inversion

import (
	"runtime"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// host is Linux only.
type host struct{ forced []string }

// notHere: SCHED_FIFO threads pinned to one CPU, FUTEX_LOCK_PI and
// sched_setattr(2) are Linux's; other systems' real-time classes and
// priority-inheriting locks differ (macOS has no SCHED_FIFO for user
// threads, Windows boosts waiters differently), so the experiment is not
// ported.
func notHere() string {
	return "inversion is Linux only (SCHED_FIFO threads pinned to one CPU, FUTEX_LOCK_PI, sched_setattr); this is " + runtime.GOOS
}

func hostWhy(force bool) string { return notHere() }

func checkHost(force bool) (host, error) { return host{}, driver.Bad("host", "%s", notHere()) }
