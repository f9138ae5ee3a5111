//go:build !linux && !windows && !(darwin && cgo)

package parkers

import (
	"sync"
	"time"
)

const cbPrimitives = "not Linux: sync.Mutex + a one-slot channel condvar (goroutine-level, not an OS-thread condvar)"

// Off Linux the crossbeam parker falls back to Go's primitives. sync.Cond
// has no timed wait, so the condvar is a one-slot channel, which is enough
// because a Parker has exactly one waiter (its owner): NotifyOne leaves at
// most one pending notification, and a stale one is a spurious wakeup,
// which crossbeam's loop tolerates. Both park the goroutine in the Go
// scheduler rather than the thread in the kernel.
type cbMutex struct{ sync.Mutex }

type cbCond struct {
	once  sync.Once
	ch    chan struct{}
	timer *time.Timer
}

func (c *cbCond) init() {
	c.once.Do(func() {
		c.ch = make(chan struct{}, 1)
		c.timer = time.NewTimer(time.Hour)
		c.timer.Stop()
	})
}

// Wait is only called by the owner.
func (c *cbCond) Wait(m *cbMutex, timed bool, deadline time.Time) {
	c.init()
	m.Unlock()
	if !timed {
		<-c.ch
	} else if d := time.Until(deadline); d > 0 {
		c.timer.Reset(d)
		select {
		case <-c.ch:
		case <-c.timer.C:
		}
		c.timer.Stop()
	}
	m.Lock()
}

func (c *cbCond) NotifyOne() {
	c.init()
	select {
	case c.ch <- struct{}{}:
	default:
	}
}
