package timeout

import (
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/parkers"
)

// The parking lot's timed waits, on the thread parker the lot is set to for
// the run (Options.LotParker, or lot.CurrentBackend: futex on Linux by
// default): a bare Park with a
// deadline on a private key, Condvar.WaitUntil (which also re-locks its
// mutex before returning), and Mutex.TryLockUntil on a mutex that stays
// held (which spins a little first, as upstream's SpinWait does).
func init() {
	lotImpl := func(name, summary string, nw func() timedWaiter) func(parkers.Backend) mechanism {
		return func(b parkers.Backend) mechanism {
			params := func() map[string]string { return map[string]string{"lot_parker": b.Name} }
			return mechanism{name: name, kind: "lot", kernelTimed: b.Sleeps, params: params, newWaiter: nw, summary: summary}
		}
	}
	extraMechanisms = append(extraMechanisms,
		lotImpl("lot-park", "lot.Park with a deadline on a private key", func() timedWaiter {
			key := new(int64)
			return timedWaiter{
				wait: func(d time.Time) bool {
					r := lot.Park(unsafe.Pointer(key), nil, nil, nil, 0, d)
					return r.Kind != lot.ParkTimedOut
				},
				close: func() {},
			}
		}),
		lotImpl("lot-condvar", "lot.Condvar.WaitUntil (re-locks its mutex before returning)", func() timedWaiter {
			var m lot.Mutex
			var cv lot.Condvar
			return timedWaiter{
				wait: func(d time.Time) bool {
					m.Lock()
					timedOut := cv.WaitUntil(&m, d)
					m.Unlock()
					return !timedOut
				},
				close: func() {},
			}
		}),
		lotImpl("lot-trylock", "lot.Mutex.TryLockUntil on a mutex that stays held (spins a little first)", func() timedWaiter {
			m := new(lot.Mutex)
			m.Lock() // held for the whole configuration: every TryLockUntil times out
			return timedWaiter{
				wait:  m.TryLockUntil,
				close: m.Unlock,
			}
		}),
	)
}
