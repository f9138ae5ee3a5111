package stress

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/lot"
)

const (
	tokReq  = 1 << 41 // woken by UnparkRequeue: tokReq | requeue sequence
	tokB    = 2 << 41 // woken from the target key by UnparkOne: tokB | sequence
	tokAllB = 3 << 41
	tokMskR = 3 << 41
)

// stressLotRequeue: threads park on key A; one unparker runs UnparkRequeue
// A -> B with every RequeueOp, another wakes threads from B with UnparkOne
// and UnparkAll. A requeue always moves a prefix of A's queue onto B's tail,
// so B stays in A's enqueue order. Checks: no lost wakeup (watchdog);
// exactly once (the threads the unparkers counted = the Unparked returns);
// FIFO for the threads UnparkRequeue woke and for those UnparkOne(B) woke;
// the timed-out callback reports key A or B (B after a requeue); the
// UnparkResult counts add up; timed parks return in bound.
func stressLotRequeue(r reporter, name string, waiters int) (ops, checks uint64) {
	ru := newRun(r, name, waiters+2)
	a, b := new(parkKey), new(parkKey)
	ka, kb := unsafe.Pointer(a), unsafe.Pointer(b)
	var waitersDone atomic.Int32
	ru.rescue = func() {
		go func() {
			for waitersDone.Load() < int32(waiters) {
				lot.UnparkAll(ka, 0)
				lot.UnparkAll(kb, 0)
				time.Sleep(time.Millisecond)
			}
		}()
	}
	var (
		reqSeq, bSeq      atomic.Uint64
		reqWoken, bWoken  atomic.Uint64
		returns           atomic.Uint64
		requeued          atomic.Uint64
		timeoutsA, timeoB atomic.Uint64
		pairMu            sync.Mutex
		pairsReq, pairsB  [][2]uint64
	)
	fns := make([]func(*worker), 0, waiters+2)
	for i := 0; i < waiters; i++ {
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("waiter %d", i)
			defer waitersDone.Add(1)
			var myReq, myB [][2]uint64
			defer func() {
				pairMu.Lock()
				pairsReq = append(pairsReq, myReq...)
				pairsB = append(pairsB, myB...)
				pairMu.Unlock()
			}()
			for {
				var ticket uint64
				var deadline time.Time
				if w.sometimes(4) {
					deadline = w.shortDeadline()
					w.set(&stParkUntil)
				} else {
					w.set(&stPark)
				}
				var toKey unsafe.Pointer
				res := lot.Park(ka,
					func() bool {
						if ru.stopping() {
							return false
						}
						ticket = a.tickets.Add(1)
						return true
					},
					nil,
					func(key unsafe.Pointer, wasLast bool) { toKey = key },
					lot.DefaultParkToken, deadline)
				w.checks++
				switch res.Kind {
				case lot.ParkInvalid:
					w.ops.Add(1)
					return
				case lot.ParkTimedOut:
					checkTimeoutBound(ru, "lot.Park (requeue)", deadline, time.Now())
					switch toKey {
					case ka:
						timeoutsA.Add(1)
					case kb:
						timeoB.Add(1)
					default:
						ru.errorf("%s: timed out on key %p, neither A %p nor B %p", w.name, toKey, ka, kb)
					}
				case lot.ParkUnparked:
					returns.Add(1)
					seq := uint64(res.Token) &^ tokMskR
					switch uint64(res.Token) & tokMskR {
					case tokReq:
						myReq = append(myReq, [2]uint64{ticket, seq})
					case tokB:
						myB = append(myB, [2]uint64{ticket, seq})
					case tokAllB:
					default:
						ru.errorf("%s: Unparked with token %#x nobody gave", w.name, res.Token)
					}
				}
				w.ops.Add(1)
			}
		})
	}
	ops5 := []lot.RequeueOp{lot.RequeueOpAbort, lot.RequeueOpUnparkOneRequeueRest, lot.RequeueOpRequeueAll, lot.RequeueOpUnparkOne, lot.RequeueOpRequeueOne}
	fns = append(fns, func(w *worker) {
		w.name = "requeuer"
		for waitersDone.Load() < int32(waiters) {
			op := ops5[w.rng.IntN(len(ops5))]
			w.set(&stUnpark)
			var cbOp lot.RequeueOp
			called := false
			res := lot.UnparkRequeue(ka, kb,
				func() lot.RequeueOp { return op },
				func(o lot.RequeueOp, res lot.UnparkResult) lot.UnparkToken {
					called, cbOp = true, o
					if res.UnparkedThreads == 1 {
						return lot.UnparkToken(tokReq | reqSeq.Add(1))
					}
					return 0
				})
			w.checks++
			reqWoken.Add(uint64(res.UnparkedThreads))
			requeued.Add(uint64(res.RequeuedThreads))
			bad := res.UnparkedThreads > 1
			switch op {
			case lot.RequeueOpAbort:
				bad = bad || called || res.UnparkedThreads+res.RequeuedThreads != 0
			case lot.RequeueOpRequeueAll:
				bad = bad || res.UnparkedThreads != 0
			case lot.RequeueOpUnparkOne:
				bad = bad || res.RequeuedThreads != 0
			case lot.RequeueOpRequeueOne:
				bad = bad || res.UnparkedThreads != 0 || res.RequeuedThreads > 1
			}
			if op != lot.RequeueOpAbort && called && cbOp != op {
				ru.errorf("UnparkRequeue(%v): callback got op %v", op, cbOp)
			}
			if bad {
				ru.errorf("UnparkRequeue(%v) = %+v (callback called=%v)", op, res, called)
			}
			if res.UnparkedThreads+res.RequeuedThreads == 0 {
				runtime.Gosched()
			}
			w.ops.Add(1)
		}
	})
	fns = append(fns, func(w *worker) {
		w.name = "unparker B"
		n := 0
		for waitersDone.Load() < int32(waiters) {
			w.set(&stUnpark)
			n++
			if n%8 == 0 {
				bWoken.Add(uint64(lot.UnparkAll(kb, tokAllB)))
			} else {
				res := lot.UnparkOne(kb, func(res lot.UnparkResult) lot.UnparkToken {
					if res.UnparkedThreads == 1 {
						return lot.UnparkToken(tokB | bSeq.Add(1))
					}
					return 0
				})
				bWoken.Add(uint64(res.UnparkedThreads))
				if res.UnparkedThreads == 0 {
					runtime.Gosched()
				}
			}
			w.ops.Add(1)
		}
	})
	ru.goAll(fns...)
	if want, got := reqWoken.Load()+bWoken.Load(), returns.Load(); want != got {
		ru.errorf("unparkers woke %d threads (requeue %d, from B %d) but %d parks returned Unparked", want, reqWoken.Load(), bWoken.Load(), got)
	}
	ru.workers[0].checks += 1 + checkMonotonic(ru, "woken by UnparkRequeue", pairsReq) + checkMonotonic(ru, "woken from B", pairsB)
	ru.note("requeued=%d woken_requeue=%d woken_b=%d timeouts_a=%d timeouts_b=%d", requeued.Load(), reqWoken.Load(), bWoken.Load(), timeoutsA.Load(), timeoB.Load())
	return ru.report()
}

func TestLotRequeue(t *testing.T) {
	for _, p := range procsMatrix {
		withProcs(t, p, func(t *testing.T) {
			stressLotRequeue(t, "lot-requeue/"+lot.CurrentBackend().Name, 6)
		})
	}
}
