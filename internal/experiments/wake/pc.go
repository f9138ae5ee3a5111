package wake

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/futexsync"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/results"
)

// The condvar producer/consumer of parking_lot issue #448: one producer
// and one consumer over a bounded queue guarded by one mutex, with two
// condition variables (not full, not empty) and one notify_one per item on
// each side.

// pcResult is one round.
type pcResult struct {
	elapsedNs int64 // the producer's first push -> the consumer's last pop
	switches  int64 // both threads' RUSAGE_THREAD switches (sync: the process's, RUSAGE_SELF)
	waits     int64 // condvar waits, both sides
}

// pcImpl runs one round of items through a queue of capacity, notifying
// with the mutex held or after unlocking, within bound.
type pcImpl func(items, capacity int, held bool, bound time.Duration) (pcResult, error)

// pcPrims are the mutex and the two condvars of one implementation.
type pcPrims struct {
	lock, unlock              func()
	waitNotFull, waitNotEmpty func()
	notifyNotFull             func()
	notifyNotEmpty            func()
	notifyAll                 func() // both condvars: the watchdog's rescue
	goroutines                bool
}

// lotPC and stdPC are one body written twice on purpose: a generic
// condvarPC[M, C] calls Wait and NotifyOne through its shape dictionary,
// and -gcflags=-m shows that none of them inlines into these closures,
// which run once per item of the measured loop; written out, lot's Wait
// and both NotifyOne fast paths inline.
func lotPC(items, capacity int, held bool, bound time.Duration) (pcResult, error) {
	var m lot.Mutex
	var notFull, notEmpty lot.Condvar
	return runPC(pcPrims{
		lock: m.Lock, unlock: m.Unlock,
		waitNotFull:    func() { notFull.Wait(&m) },
		waitNotEmpty:   func() { notEmpty.Wait(&m) },
		notifyNotFull:  func() { notFull.NotifyOne() },
		notifyNotEmpty: func() { notEmpty.NotifyOne() },
		notifyAll:      func() { notFull.NotifyAll(); notEmpty.NotifyAll() },
	}, items, capacity, held, bound)
}

func stdPC(items, capacity int, held bool, bound time.Duration) (pcResult, error) {
	var m futexsync.Mutex
	var notFull, notEmpty futexsync.Condvar
	return runPC(pcPrims{
		lock: m.Lock, unlock: m.Unlock,
		waitNotFull:    func() { notFull.Wait(&m) },
		waitNotEmpty:   func() { notEmpty.Wait(&m) },
		notifyNotFull:  func() { notFull.NotifyOne() },
		notifyNotEmpty: func() { notEmpty.NotifyOne() },
		notifyAll:      func() { notFull.NotifyAll(); notEmpty.NotifyAll() },
	}, items, capacity, held, bound)
}

func syncPC(items, capacity int, held bool, bound time.Duration) (pcResult, error) {
	var m sync.Mutex
	notFull, notEmpty := sync.NewCond(&m), sync.NewCond(&m)
	return runPC(pcPrims{
		lock: m.Lock, unlock: m.Unlock,
		waitNotFull: notFull.Wait, waitNotEmpty: notEmpty.Wait,
		notifyNotFull: notFull.Signal, notifyNotEmpty: notEmpty.Signal,
		notifyAll:  func() { notFull.Broadcast(); notEmpty.Broadcast() },
		goroutines: true,
	}, items, capacity, held, bound)
}

func cPC(items, capacity int, held bool, bound time.Duration) (pcResult, error) {
	r, err := cref.ProducerConsumer(items, capacity, held, bound)
	return pcResult{elapsedNs: r.ElapsedNs, switches: r.Switches, waits: r.Waits}, err
}

// errPCOrder is a correctness failure: the consumer saw an item out of order.
var errPCOrder = errors.New("producer/consumer: an item came out of order")

// runPC runs one round on Go threads (locked, unpinned), or plain
// goroutines for sync.
func runPC(p pcPrims, items, capacity int, held bool, bound time.Duration) (pcResult, error) {
	var (
		buf         = make([]int64, capacity)
		head, count int  // under the mutex
		abort       bool // under the mutex: the watchdog gave up
		readyN      atomic.Int64
		start       = make(chan struct{})
		tStart      int64
		tEnd        int64
		csw         [2]int64
		waits       [2]int64
		outOfOrder  atomic.Bool
		wg          sync.WaitGroup
	)
	notify := func(f func()) {
		if held {
			f()
			p.unlock()
		} else {
			p.unlock()
			f()
		}
	}
	run := func(f func()) { driver.Start(&wg, p.goroutines, f) }
	usage := func() int64 {
		if p.goroutines {
			return 0
		}
		u, _ := osthread.ThreadUsage()
		return u.Switches()
	}
	procPre, _ := osthread.ProcessUsage()
	run(func() { // producer
		c0 := usage()
		readyN.Add(1)
		<-start
		tStart = monoclock.Nanotime()
		for i := 0; i < items; i++ {
			p.lock()
			for count == capacity && !abort {
				waits[0]++
				p.waitNotFull()
			}
			if abort {
				p.unlock()
				break
			}
			buf[(head+count)%capacity] = int64(i)
			count++
			notify(p.notifyNotEmpty)
		}
		csw[0] = usage() - c0
	})
	run(func() { // consumer
		c0 := usage()
		readyN.Add(1)
		<-start
		for i := 0; i < items; i++ {
			p.lock()
			for count == 0 && !abort {
				waits[1]++
				p.waitNotEmpty()
			}
			if abort {
				p.unlock()
				break
			}
			if buf[head] != int64(i) {
				outOfOrder.Store(true)
			}
			head = (head + 1) % capacity
			count--
			notify(p.notifyNotFull)
		}
		tEnd = monoclock.Nanotime()
		csw[1] = usage() - c0
	})
	for readyN.Load() < 2 {
		time.Sleep(50 * time.Microsecond)
	}
	close(start)
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	var err error
	select {
	case <-finished:
	case <-timer.C:
		p.lock()
		abort = true
		p.unlock()
		p.notifyAll()
		<-finished
		err = fmt.Errorf("producer/consumer: no progress within %v (a lost wakeup)", bound)
	}
	res := pcResult{elapsedNs: tEnd - tStart, switches: csw[0] + csw[1], waits: waits[0] + waits[1]}
	if p.goroutines {
		procPost, _ := osthread.ProcessUsage()
		res.switches = procPost.Switches() - procPre.Switches()
	}
	if err == nil && outOfOrder.Load() {
		err = errPCOrder
	}
	return res, err
}

// runPCGroup runs the producer/consumer configurations, round-interleaved.
func runPCGroup(ctx context.Context, group []cfgSpec, o Options, records []*results.Config, report func(cfgSpec, int)) error {
	bound := 60*time.Second + time.Duration(o.Items)*100*time.Microsecond
	vals := make([][]map[string]float64, len(group))
	for k, c := range group {
		cfg := records[k]
		cfg.Params["items"] = strconv.Itoa(o.Items)
		cfg.Params["capacity"] = strconv.Itoa(o.Capacity)
		cfg.Params["notify_held"] = strconv.FormatBool(o.NotifyHeld)
		if c.im.kind == "goroutine" {
			cfg.Params["switches"] = "process (RUSAGE_SELF): goroutines have no thread of their own"
		} else {
			cfg.Params["switches"] = "the two threads' (RUSAGE_THREAD)"
		}
	}
	err := interleaved(ctx, o.PCRounds, group, report, func(_, k int, c cfgSpec) error {
		pr, err := c.im.pc(o.Items, o.Capacity, o.NotifyHeld, bound)
		if err != nil {
			return fmt.Errorf("wake condvar %s: %w", c.im.name, err)
		}
		items := float64(o.Items)
		m := map[string]float64{
			MNsPerItem:   float64(pr.elapsedNs) / items,
			MCswPerItem:  float64(pr.switches) / items,
			MWaitPerItem: float64(pr.waits) / items,
		}
		if pr.elapsedNs > 0 {
			m[MItemsPerSec] = items / (float64(pr.elapsedNs) / 1e9)
		}
		records[k].Rounds = append(records[k].Rounds, results.Round{Metrics: m})
		vals[k] = append(vals[k], m)
		return nil
	})
	if err != nil {
		return err
	}
	for k, cfg := range records {
		cfg.Summary = driver.MedianOfRounds(vals[k])
	}
	return nil
}
