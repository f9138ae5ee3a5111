//go:build lotdeadlock

package lot

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// DeadlockDetection reports whether the deadlock detector is built in
// (build tag lotdeadlock).
const DeadlockDetection = true

// The deadlock detector, upstream's deadlock_impl (parking_lot
// core/src/parking_lot.rs:1148-1360, the deadlock_detection feature).
//
// Each goroutine records the resources (park keys) it holds: every lock of
// this package calls deadlockAcquire after it acquires and deadlockRelease
// once it has released (RwLock both of its keys). A goroutine parked
// without a timeout waits for its key. CheckDeadlock builds the wait
// graph, resource -> goroutine holding it -> key it waits for, and
// reports its cycles.
//
// Upstream keeps this data in the thread's ThreadData (thread-local). Ours
// are pooled, so the data lives in a record per goroutine: whoever locks a
// lot lock is a goroutine, locked to its OS thread (a parkbench thread:
// the goroutine is the thread) or not, and a goroutine that is not locked
// may move to another OS thread between its lock and its unlock, or run
// on a thread after other goroutines. Records keyed by the OS thread id,
// as this detector first had them, were then shared by the goroutines
// running on a thread, unguarded (two appends at once: an index out of
// range inside the detector), and an unlock on another thread than the
// lock's missed its record (a lock forgotten, or never forgotten). Keyed
// by the goroutine (goroutineKey), a record has one writer, its goroutine;
// mu guards it against CheckDeadlock, which reads it from another
// goroutine. Park attaches the caller's record to the ThreadData it
// queues (deadlockOnPark) so the graph can be built from the bucket
// queues as upstream does.
//
// What a record cannot know, as upstream with its send_guard feature: a
// lock released by another goroutine than the one that took it (lot's
// Mutex and RwLock allow it, like sync's) stays in the taker's record, and
// the release is ignored in the releaser's. And where goroutineKey is the
// runtime's goroutine descriptor, which the runtime reuses for a new
// goroutine once one exits, a goroutine that exits holding a lock leaves
// that lock in the record its descriptor's next goroutine gets.

// DeadlockedThread is one thread of a deadlock cycle (upstream
// DeadlockedThread: thread_id and backtrace).
type DeadlockedThread struct {
	// ThreadID is the id of the OS thread the goroutine was parked on, as
	// threadID gives it (the OS thread id on Linux; elsewhere the
	// goroutine id). For a goroutine locked to its thread it names the
	// thread.
	ThreadID uintptr
	// GoroutineID is the id of the deadlocked goroutine (as in its stack
	// trace's "goroutine N").
	GoroutineID uintptr
	// Stack is the goroutine's own stack, taken by the goroutine when the
	// detector woke it (upstream: Backtrace::new() in on_unpark).
	Stack string
}

// deadlockData is upstream's DeadlockData: one goroutine's record.
type deadlockData struct {
	// mu guards the fields below. Lock order: a bucket lock, then mu
	// (CheckDeadlock reads a queued goroutine's record under its bucket
	// lock); the owner takes mu alone, never a bucket lock while holding
	// it.
	mu sync.Mutex
	// resources are the keys held (a key held twice, as by two reads, is
	// there twice). Changed only by the owner.
	resources []unsafe.Pointer
	// deadlocked is set, with sender, by CheckDeadlock before it wakes the
	// goroutine; read by the goroutine once woken.
	deadlocked bool
	sender     chan<- DeadlockedThread
}

// deadlockTD is embedded in threadData: the record of the goroutine that
// queued it, set by Park under the bucket lock (nil if it has no record).
type deadlockTD struct {
	dd *deadlockData
}

// deadlockRecords maps goroutineKey to the goroutine's record. Only a
// record's own goroutine adds or removes its entry; CheckDeadlock never
// reads the map (it reaches records through the queued ThreadData).
//
// Where the key is the goroutine's runtime descriptor (deadlock_getg.go),
// records are kept when their goroutine exits: the runtime reuses
// descriptors, so there are never more records than goroutines were ever
// alive at once, and a steady state allocates nothing. Where the key is
// the goroutine id, which is never reused, a record is deleted once
// empty (deadlockForget), else every goroutine that ever locked would
// leave one.
var deadlockRecords struct {
	sync.RWMutex
	m map[uintptr]*deadlockData
}

// deadlockRecord returns the calling goroutine's record and its key; the
// record is nil if the goroutine has none and create is false. Its cost is
// goroutineKey's (see there) plus a map lookup under a read lock; every
// acquire and release pays it.
func deadlockRecord(create bool) (*deadlockData, uintptr) {
	key := goroutineKey()
	deadlockRecords.RLock()
	d := deadlockRecords.m[key]
	deadlockRecords.RUnlock()
	if d != nil || !create {
		return d, key
	}
	d = new(deadlockData)
	deadlockRecords.Lock()
	if deadlockRecords.m == nil {
		deadlockRecords.m = make(map[uintptr]*deadlockData)
	}
	deadlockRecords.m[key] = d
	deadlockRecords.Unlock()
	return d, key
}

// deadlockAcquire is upstream's acquire_resource: call after acquiring.
func deadlockAcquire(keys ...unsafe.Pointer) {
	d, _ := deadlockRecord(true)
	d.mu.Lock()
	d.resources = append(d.resources, keys...)
	d.mu.Unlock()
}

// deadlockRelease is upstream's release_resource: call once released. A
// key this goroutine does not hold is ignored, as upstream (there: TLS
// already destroyed; here also: released by another goroutine than the
// one that acquired, which lot's Mutex and RwLock allow).
func deadlockRelease(keys ...unsafe.Pointer) {
	d, key := deadlockRecord(false)
	if d == nil {
		return
	}
	d.mu.Lock()
	for _, k := range keys {
		for i := len(d.resources) - 1; i >= 0; i-- {
			if d.resources[i] == k {
				d.resources = slices.Delete(d.resources, i, i+1)
				break
			}
		}
	}
	empty := len(d.resources) == 0
	d.mu.Unlock()
	if deadlockForget && empty {
		// Only this goroutine adds to d, so it stays empty: forget it. A
		// ThreadData that still points to it (a Condvar waiter that
		// released its mutex in beforeSleep) sees an empty record.
		deadlockRecords.Lock()
		delete(deadlockRecords.m, key)
		deadlockRecords.Unlock()
	}
}

// deadlockAcquireRw and deadlockReleaseRw record both keys of an RwLock
// as held, as upstream (raw_rwlock.rs:1148-1160): a writer parked on the
// writer queue waits for the readers, who hold the second key.
func deadlockAcquireRw(rw *RwLock) { deadlockAcquire(rw.mainKey(), rw.writerQKey()) }

func deadlockReleaseRw(rw *RwLock) { deadlockRelease(rw.mainKey(), rw.writerQKey()) }

// deadlockOnPark attaches the caller's record to td (nil if it has none:
// a goroutine that never held a lock cannot be on a cycle); Park calls it
// under the bucket lock, before queueing td.
func deadlockOnPark(td *threadData) { td.dd, _ = deadlockRecord(false) }

// deadlockOnUnpark is upstream's on_unpark: a goroutine woken by
// CheckDeadlock reports its stack and parks forever.
func deadlockOnUnpark(td *threadData) {
	d := td.dd
	if d == nil {
		return
	}
	d.mu.Lock()
	deadlocked, sender := d.deadlocked, d.sender
	d.sender = nil
	d.mu.Unlock()
	if !deadlocked || sender == nil {
		return
	}
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	sender <- DeadlockedThread{ThreadID: threadID(), GoroutineID: goroutineID(), Stack: string(buf)}
	// Park until the end of time. The thread is still in its bucket queue
	// (upstream leaves it there too); an unpark reaching it is a bug.
	td.parker.PreparePark()
	td.parker.Park()
	panic("lot: unparked deadlocked thread!")
}

// CheckDeadlock returns the deadlocks found since the last call, each a
// cycle of threads (upstream check_deadlock). A thread reported once is
// left parked forever and never reported again. Only threads parked
// without a timeout count.
func CheckDeadlock() [][]DeadlockedThread {
	// Fast pass, then double check with every bucket locked.
	if checkWaitGraphFast() {
		return checkWaitGraphSlow()
	}
	return nil
}

// addWaitEdges adds b's queued threads to the graph: each resource a
// thread holds waits for that thread, the thread waits for its key.
// b is locked.
func addWaitEdges(b *bucket, edge func(from, to waitNode)) {
	for cur := b.queueHead; cur != nil; cur = cur.nextInQueue {
		if cur.parkedWithTimeout || cur.dd == nil {
			continue
		}
		d := cur.dd
		d.mu.Lock()
		if !d.deadlocked {
			for _, r := range d.resources {
				edge(waitNode{res: r}, waitNode{td: cur})
			}
			edge(waitNode{td: cur}, waitNode{res: cur.loadKey()})
		}
		d.mu.Unlock()
	}
}

// waitNode is upstream's WaitGraphNode: a thread (td != nil) or a resource.
type waitNode struct {
	td  *threadData
	res unsafe.Pointer
}

type waitGraph struct {
	adj   map[waitNode][]waitNode
	nodes []waitNode
}

func newWaitGraph() *waitGraph { return &waitGraph{adj: make(map[waitNode][]waitNode)} }

func (g *waitGraph) addEdge(from, to waitNode) {
	for _, n := range [2]waitNode{from, to} {
		if _, ok := g.adj[n]; !ok {
			g.adj[n] = nil
			g.nodes = append(g.nodes, n)
		}
	}
	g.adj[from] = append(g.adj[from], to)
}

// checkWaitGraphFast is upstream's check_wait_graph_fast: is there a
// cycle, locking one bucket at a time (imprecise).
func checkWaitGraphFast() bool {
	g := newWaitGraph()
	t := getHashtable()
	for i := range t.entries {
		b := &t.entries[i]
		b.mutex.lock()
		addWaitEdges(b, g.addEdge)
		b.mutex.unlock()
	}
	_, found := g.cycles(false)
	return found
}

// deadlockDetectionLock serialises checkWaitGraphSlow (upstream
// DEADLOCK_DETECTION_LOCK, a WordLock).
var deadlockDetectionLock wordLock

// checkWaitGraphSlow is upstream's check_wait_graph_slow: lock every
// bucket of the current table, build the graph, find the thread cycles,
// and wake each deadlocked thread to report its stack.
func checkWaitGraphSlow() [][]DeadlockedThread {
	deadlockDetectionLock.lock()
	defer deadlockDetectionLock.unlock()

	table := getHashtable()
	for {
		// Lock all buckets in the old table.
		for i := range table.entries {
			b := &table.entries[i]
			b.mutex.lock()
		}
		// Now check if our table is still the latest one. Another thread
		// could have grown the hash table between us getting and locking
		// the hash table.
		nt := getHashtable()
		if nt == table {
			break
		}
		for i := range table.entries {
			b := &table.entries[i]
			b.mutex.unlock()
		}
		table = nt
	}
	g := newWaitGraph()
	for i := range table.entries {
		b := &table.entries[i]
		addWaitEdges(b, g.addEdge)
	}
	for i := range table.entries {
		b := &table.entries[i]
		b.mutex.unlock()
	}

	var results [][]DeadlockedThread
	cycles, _ := g.cycles(true)
	for _, cycle := range cycles {
		ch := make(chan DeadlockedThread, len(cycle))
		for _, td := range cycle {
			// The thread is parked, without a timeout, and only we wake it
			// out of a cycle: its key cannot change under us (a requeue
			// would mean someone is about to wake it, but then it was not
			// deadlocked; as upstream, the graph is trusted).
			b := lockBucket(td.loadKey())
			td.dd.mu.Lock()
			td.dd.deadlocked = true
			td.dd.sender = ch
			td.dd.mu.Unlock()
			h := td.parker.UnparkLock()
			b.mutex.unlock()
			// Unpark the deadlocked thread! On unpark it will notice the
			// deadlocked flag and report back.
			h.Unpark()
		}
		threads := make([]DeadlockedThread, 0, len(cycle))
		for range cycle {
			threads = append(threads, <-ch)
		}
		results = append(results, threads)
	}
	return results
}

// cycles is upstream's graph_cycles: a depth-first search from the thread
// nodes; a back edge closes a cycle, the threads on the path from its
// target. Cycles are normalised to start at their smallest thread and
// deduplicated. With all false it stops at the first cycle (the fast
// pass's is_cyclic_directed) and returns only whether there was one.
//
// Departure: upstream records a cycle only on a back edge to a thread
// node; a cycle first entered through one of its resources (from a
// waiting thread outside it) closes with a back edge to that resource, and
// upstream would miss it. Ours records it too (the path keeps resource
// nodes as well).
func (g *waitGraph) cycles(all bool) (out [][]*threadData, found bool) {
	const (
		white = iota
		grey
		black
	)
	color := make(map[waitNode]int, len(g.nodes))
	var path []waitNode
	seen := make(map[string]bool)
	var visit func(n waitNode)
	visit = func(n waitNode) {
		color[n] = grey
		path = append(path, n)
		for _, m := range g.adj[n] {
			if found && !all {
				break
			}
			switch color[m] {
			case white:
				visit(m)
			case grey:
				found = true
				from := len(path) - 1
				for path[from] != m {
					from--
				}
				var cyc []*threadData
				for _, p := range path[from:] {
					if p.td != nil {
						cyc = append(cyc, p.td)
					}
				}
				cyc = normalizeCycle(cyc)
				if k := fmt.Sprint(cyc); !seen[k] {
					seen[k] = true
					out = append(out, cyc)
				}
			}
		}
		path = path[:len(path)-1]
		color[n] = black
	}
	// Start from threads to get the correct threads cycle.
	for _, n := range g.nodes {
		if n.td != nil && color[n] == white {
			visit(n)
		}
	}
	return out, found
}

// normalizeCycle rotates a cycle to start with its smallest thread.
func normalizeCycle(in []*threadData) []*threadData {
	minPos := 0
	for i, t := range in {
		if uintptr(unsafe.Pointer(t)) < uintptr(unsafe.Pointer(in[minPos])) {
			minPos = i
		}
	}
	out := make([]*threadData, 0, len(in))
	out = append(out, in[minPos:]...)
	return append(out, in[:minPos]...)
}
