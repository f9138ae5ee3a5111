package lot

import (
	"sync/atomic"

	"github.com/parkbench/parkbench/internal/chaos"
	"github.com/parkbench/parkbench/internal/parkers"
)

// wordLock is parking_lot_core's WordLock: the word-sized lock that guards
// one hash bucket. It cannot use the parking lot (it is the parking lot's
// own lock), so it keeps its own queue of waiting threads.
//
// State word: bit 0 LOCKED, bit 1 QUEUE_LOCKED, the rest the queue head.
// Upstream stores the head ThreadData's address there. A Go pointer stored
// in a uintptr is invisible to the garbage collector (and converting it
// back trips checkptr under -race), so the rest of our word is the head
// node's slab id (id << 2). The slab (wlSlab) holds every node for the life
// of the process, which keeps each queued node reachable; the algorithm is
// otherwise upstream's, one CAS covering lock bits and head together.
type wordLock struct {
	state atomic.Uintptr
}

const (
	wlLockedBit      uintptr = 1
	wlQueueLockedBit uintptr = 2
	wlQueueMask              = ^uintptr(3)
	wlIDShift                = 2
)

// wlNode is word_lock::ThreadData.
//
// The queue is split into a processed part and an unprocessed part. New
// nodes are pushed at the head with only next set and queueTail nil.
// Nodes are processed with QUEUE_LOCKED held: prev is filled in, and
// queueTail is cached on the first processed node. This allows pushing
// without a lock and O(1) removal from the tail; each node is processed
// once.
//
// Who writes what: the owner writes queueTail, prev and next of its own
// node before the CAS that publishes it as the head (a release); after that
// only the thread holding QUEUE_LOCKED writes prev and queueTail, until the
// node is popped and its owner woken (the parker's release/acquire orders
// the owner's next writes after that).
type wlNode struct {
	poolLink
	pool      *backendPool
	parker    parkers.ThreadParker
	queueTail *wlNode
	prev      *wlNode
	next      *wlNode
}

func wlHead(state uintptr) *wlNode {
	id := uint32(state >> wlIDShift)
	if id == 0 {
		return nil
	}
	return wlSlab.at(id)
}

func wlWithHead(state uintptr, n *wlNode) uintptr {
	return state&^wlQueueMask | uintptr(n.id)<<wlIDShift
}

func (l *wordLock) lock() {
	if l.state.CompareAndSwap(0, wlLockedBit) {
		return
	}
	l.lockSlow()
}

// unlock must only be called by the holder.
func (l *wordLock) unlock() {
	// fetch_sub(LOCKED_BIT); Add returns the new value, which differs from
	// the old only in bit 0, so the checks below read the same.
	state := l.state.Add(^uintptr(0))
	// Upstream returns here if QUEUE_LOCKED is set or there is no queue.
	// We only test state != 0 (LOCKED is clear now, so that means "a queue
	// or QUEUE_LOCKED") and leave the QUEUE_LOCKED case to unlockSlow,
	// whose loop starts with upstream's full check on a fresh load: the
	// same outcome, and the one-test form keeps unlock within Go's
	// inlining budget, so the uncontended unlock is inline in its callers.
	if state != 0 {
		l.unlockSlow()
	}
}

func (l *wordLock) lockSlow() {
	var spin SpinWait
	var node *wlNode
	state := l.state.Load()
	for {
		// Grab the lock if it isn't locked, even if there is a queue on it.
		if state&wlLockedBit == 0 {
			if l.state.CompareAndSwap(state, state|wlLockedBit) {
				break
			}
			state = l.state.Load()
			continue
		}

		// If there is no queue, try spinning a few times.
		if state&wlQueueMask == 0 && spin.Spin() {
			state = l.state.Load()
			continue
		}

		// Get a node and prepare it for parking. Upstream builds it on the
		// stack when IS_CHEAP_TO_CONSTRUCT; ours comes from the pool (a
		// goroutine stack may move, and the word must name the node).
		if node == nil {
			node = pool().getWLNode()
		}
		node.parker.PreparePark()

		// Add our node to the front of the queue.
		if head := wlHead(state); head == nil {
			node.queueTail = node
			node.prev = nil
			node.next = nil
		} else {
			node.queueTail = nil
			node.prev = nil
			node.next = head
		}
		if !l.state.CompareAndSwap(state, wlWithHead(state, node)) {
			state = l.state.Load()
			continue
		}

		// Sleep until an unlock wakes us. PreparePark came before the
		// publishing CAS, so an unlocker's UnparkLock cannot be lost.
		chaos.Point("lot.wordlock.queued")
		node.parker.Park()

		// Loop back and try locking again.
		spin.Reset()
		state = l.state.Load()
	}
	if node != nil {
		// We are not in the queue: the unlocker removed us before waking
		// us. It may still be inside Unpark on our parker; a stale wake of
		// the next user of this node is absorbed by the parker's own flag
		// loop (see doc.go).
		node.pool.putWLNode(node)
	}
}

func (l *wordLock) unlockSlow() {
	state := l.state.Load()
	for {
		// We just unlocked the WordLock. If the queue is locked, another
		// thread is already taking care of waking a thread.
		if state&wlQueueLockedBit != 0 || state&wlQueueMask == 0 {
			return
		}
		// Try to grab the queue lock.
		if l.state.CompareAndSwap(state, state|wlQueueLockedBit) {
			break
		}
		state = l.state.Load()
	}

	// Now we have the queue lock and the queue is non-empty.
outer:
	for {
		// Fill in the prev pointers of newly added nodes, up to the first
		// node already processed (non-nil queueTail).
		head := wlHead(state)
		current := head
		var tail *wlNode
		for {
			tail = current.queueTail
			if tail != nil {
				break
			}
			next := current.next
			next.prev = current
			current = next
		}
		// Cache the tail on the head: the whole list now has prev set.
		head.queueTail = tail

		// If the lock is locked again, there is no point waking a thread
		// now: the next unlocker will do it (it will see the queue and
		// QUEUE_LOCKED clear).
		if state&wlLockedBit != 0 {
			if l.state.CompareAndSwap(state, state&^wlQueueLockedBit) {
				return
			}
			state = l.state.Load()
			continue
		}

		// Remove the last (oldest) node from the queue and unlock the queue.
		newTail := tail.prev
		if newTail == nil {
			for {
				// Clear the queue and QUEUE_LOCKED, keep LOCKED as it is.
				if l.state.CompareAndSwap(state, state&wlLockedBit) {
					break
				}
				state = l.state.Load()
				// If the CAS failed because a new node was pushed, rescan
				// the queue to find its prev pointers.
				if state&wlQueueMask == 0 {
					continue
				}
				continue outer
			}
		} else {
			head.queueTail = newTail
			l.state.And(^wlQueueLockedBit)
		}

		// Wake the node we removed. It is asleep (or about to be) and we
		// are the only one who can wake it.
		h := tail.parker.UnparkLock()
		chaos.Point("lot.wordlock.marked")
		h.Unpark()
		return
	}
}
