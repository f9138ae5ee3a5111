//go:build lotdeadlock

package lot

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// DeadlockDetection reports whether the deadlock detector is built in
// (build tag lotdeadlock).
const DeadlockDetection = true

// The deadlock detector, upstream's deadlock_impl (parking_lot
// core/src/parking_lot.rs:1148-1360, the deadlock_detection feature).
//
// Each thread records the resources (park keys) it holds: every lock of
// this package calls deadlockAcquire after it acquires and deadlockRelease
// before it releases (RwLock both of its keys). A thread parked without a
// timeout waits for its key. CheckDeadlock builds the wait graph, resource
// -> thread holding it -> key it waits for, and reports its cycles.
//
// Upstream keeps this data in the thread's ThreadData (thread-local).
// Ours are pooled, so the data lives in a per-thread record found by
// threadID (see threadid.go for what a thread is and its limits); Park
// attaches the caller's record to the ThreadData it queues (deadlockOnPark)
// so the graph can be built from the bucket queues as upstream does.
// Records are never freed (a thread's exit is not observable); a kernel
// thread id reused by a new thread inherits an empty record, unless the
// old thread exited holding locks.

// DeadlockedThread is one thread of a deadlock cycle (upstream
// DeadlockedThread: thread_id and backtrace).
type DeadlockedThread struct {
	// ThreadID is the thread's id as threadID gives it (the OS thread id
	// on Linux).
	ThreadID uintptr
	// Stack is the thread's own goroutine stack, taken by the thread when
	// the detector woke it (upstream: Backtrace::new() in on_unpark).
	Stack string
}

// deadlockData is upstream's DeadlockData.
type deadlockData struct {
	// resources are the keys held. Written only by the thread itself;
	// read by CheckDeadlock only while the thread is queued, under its
	// bucket lock (the thread wrote them before taking that lock to queue).
	resources []unsafe.Pointer
	// deadlocked is set, with sender, by CheckDeadlock under the bucket
	// lock before it wakes the thread; read by the thread once woken.
	deadlocked bool
	sender     chan<- DeadlockedThread
	threadID   uintptr
}

// deadlockTD is embedded in threadData: the record of the thread that
// queued it, set by Park under the bucket lock.
type deadlockTD struct {
	dd *deadlockData
}

var deadlockThreads struct {
	sync.Mutex
	m map[uintptr]*deadlockData
}

// currentDeadlockData returns the calling thread's record, creating it.
// Its cost is threadID's (one gettid(2) on Linux: about 12 µs on the
// loaded 2-vCPU VM this was written on, where syscalls are slow) plus a
// map lookup under a mutex; every acquire and release pays it.
func currentDeadlockData() *deadlockData {
	id := threadID()
	deadlockThreads.Lock()
	defer deadlockThreads.Unlock()
	if deadlockThreads.m == nil {
		deadlockThreads.m = make(map[uintptr]*deadlockData)
	}
	d := deadlockThreads.m[id]
	if d == nil {
		d = &deadlockData{threadID: id}
		deadlockThreads.m[id] = d
	}
	return d
}

// deadlockAcquire is upstream's acquire_resource: call after acquiring.
func deadlockAcquire(key unsafe.Pointer) { currentDeadlockData().acquire(key) }

func (d *deadlockData) acquire(key unsafe.Pointer) { d.resources = append(d.resources, key) }

// deadlockRelease is upstream's release_resource: call before releasing.
// A key this thread does not hold is ignored, as upstream (there: TLS
// already destroyed; here also: released by another thread than the one
// that acquired, which lot's Mutex and RwLock allow).
func deadlockRelease(key unsafe.Pointer) { currentDeadlockData().release(key) }

func (d *deadlockData) release(key unsafe.Pointer) {
	for i := len(d.resources) - 1; i >= 0; i-- {
		if d.resources[i] == key {
			last := len(d.resources) - 1
			d.resources[i] = d.resources[last]
			d.resources[last] = nil
			d.resources = d.resources[:last]
			return
		}
	}
}

// deadlockAcquireRw and deadlockReleaseRw record both keys of an RwLock
// as held, as upstream (raw_rwlock.rs:1148-1160): a writer parked on the
// writer queue waits for the readers, who hold the second key.
func deadlockAcquireRw(rw *RwLock) {
	d := currentDeadlockData()
	d.acquire(rw.mainKey())
	d.acquire(rw.writerQKey())
}

func deadlockReleaseRw(rw *RwLock) {
	d := currentDeadlockData()
	d.release(rw.mainKey())
	d.release(rw.writerQKey())
}

// deadlockOnPark attaches the caller's record to td; Park calls it under
// the bucket lock, before queueing td.
func deadlockOnPark(td *threadData) { td.dd = currentDeadlockData() }

// deadlockOnUnpark is upstream's on_unpark: a thread woken by
// CheckDeadlock reports its stack and parks forever.
func deadlockOnUnpark(td *threadData) {
	d := td.dd
	if !d.deadlocked {
		return
	}
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	d.sender <- DeadlockedThread{ThreadID: d.threadID, Stack: string(buf)}
	d.sender = nil
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
		if cur.parkedWithTimeout || cur.dd == nil || cur.dd.deadlocked {
			continue
		}
		for _, r := range cur.dd.resources {
			edge(waitNode{res: r}, waitNode{td: cur})
		}
		edge(waitNode{td: cur}, waitNode{res: cur.loadKey()})
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
	for _, b := range getHashtable().entries {
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
		for _, b := range table.entries {
			b.mutex.lock()
		}
		// Now check if our table is still the latest one. Another thread
		// could have grown the hash table between us getting and locking
		// the hash table.
		nt := getHashtable()
		if nt == table {
			break
		}
		for _, b := range table.entries {
			b.mutex.unlock()
		}
		table = nt
	}
	g := newWaitGraph()
	for _, b := range table.entries {
		addWaitEdges(b, g.addEdge)
	}
	for _, b := range table.entries {
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
			td.dd.deadlocked = true
			td.dd.sender = ch
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
