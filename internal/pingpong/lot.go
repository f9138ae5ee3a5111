package pingpong

import (
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/lot"
)

// Lot is the study's parking_lot_core version of the ping-pong (lotMech): the
// waiter parks on its flag's address with validate = "flag not yet set",
// the waker sets the flag and then calls UnparkOne on that address.
//
// Why no wake is lost: validate runs under the key's bucket lock, and the
// waiter is queued under that same lock hold; UnparkOne takes the bucket
// lock after the waker's flag store. Either validate runs after the flag
// store and sees it (ParkInvalid: the waiter never sleeps), or the waiter is
// in the queue before UnparkOne looks, and is found and woken. An UnparkOne
// that finds nobody (the waiter saw the flag at once) leaves nothing behind:
// the lot has no tokens, so there is no stale wake to absorb at all.
func Lot(pp *pingpong) mechanism {
	m := &lotMech{plain: plain{pp}}
	// Built once, outside the measured loop: a closure made per wait
	// would allocate.
	for me := 0; me < 2; me++ {
		f := &pp.slots[me].flag
		m.validate[me] = func() bool { return f.Load() == 0 }
	}
	return m
}

type lotMech struct {
	plain
	validate [2]func() bool
	// invalid counts Park calls that returned ParkInvalid (validate saw
	// the flag: no sleep). Owner-written, read between rounds. A wait
	// whose every Park was refused counts as a wait that did not sleep; a
	// queued-and-unparked one as sleeping (the parker under the lot may
	// still have seen its unpark before blocking: the lot cannot tell).
	invalid [2]uint64
}

func (m *lotMech) wait(me int) bool {
	f := &m.pp.slots[me].flag
	if f.Load() != 0 {
		return true
	}
	key := unsafe.Pointer(f) // a field of the heap-allocated pingpong
	queued := false
	for f.Load() == 0 {
		if r := lot.Park(key, m.validate[me], nil, nil, lot.DefaultParkToken, time.Time{}); r.Kind == lot.ParkInvalid {
			m.invalid[me]++
		} else {
			queued = true
		}
	}
	// Every Park refused by validate: this wait never slept.
	return !queued
}

func (m *lotMech) wake(peer int) {
	lot.UnparkOne(unsafe.Pointer(&m.pp.slots[peer].flag), nil)
}

func (m *lotMech) immediate() uint64 { return m.invalid[0] + m.invalid[1] }
