package lot

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/parkbench/parkbench/internal/parkers"
)

// backendPool is the set of parked-thread nodes built with one parker
// backend. Each node remembers its pool and goes back to it, so nodes (and
// parkers) of different backends never mix: changing the backend while
// threads are parked is safe, because a parked thread keeps the node it
// took, and a waker only ever calls the parker stored in that node.
type backendPool struct {
	backend parkers.Backend
	// threads holds the parking-lot ThreadData not in use by a Park call.
	threads freeList[threadData, *threadData]
	// wlNodes holds the WordLock nodes not in use by a lockSlow call.
	wlNodes freeList[wlNode, *wlNode]
}

var (
	// threadSlab and wlSlab own every node ever created (all backends);
	// they are what keeps a queued node reachable for the GC.
	threadSlab nodeSlab[threadData, *threadData]
	wlSlab     nodeSlab[wlNode, *wlNode]

	// currentPool is the pool new Park / lockSlow calls take nodes from.
	currentPool atomic.Pointer[backendPool]

	// poolsMu guards pools (SetBackend and first use only).
	poolsMu sync.Mutex
	pools   = map[string]*backendPool{}
)

func poolFor(b parkers.Backend) *backendPool {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	p := pools[b.Name]
	if p == nil {
		p = &backendPool{backend: b}
		p.threads.slab = &threadSlab
		p.wlNodes.slab = &wlSlab
		pools[b.Name] = p
	}
	return p
}

// SetBackend makes b the thread parker under the parking lot for every
// later Park and every later WordLock wait. b must be available and build a
// ThreadParker (NewThread set: thread backends, and token or goroutine
// backends adapted to the ThreadParker contract). It may
// be called at any time, also while threads are parked: each backend has
// its own pool of ThreadData, a parked thread keeps the one it took, and a
// waker wakes it through that ThreadData's own parker.
func SetBackend(b parkers.Backend) error {
	if b.Name == parkers.NameDefault {
		// The "default" alias: use (and pool under) the concrete backend.
		b = parkers.Default()
	}
	if b.NewThread == nil {
		return fmt.Errorf("lot: parker %q has no ThreadParker (kind %s)", b.Name, b.Kind)
	}
	if why := b.Why(); why != "" {
		return fmt.Errorf("lot: parker %q is not available here: %s", b.Name, why)
	}
	currentPool.Store(poolFor(b))
	return nil
}

// SetBackendName looks name up in the parkers registry and calls
// SetBackend (for --lot-parker=NAME).
func SetBackendName(name string) error {
	b, err := parkers.Lookup(name)
	if err != nil {
		return err
	}
	return SetBackend(b)
}

// CurrentBackend returns the backend new parks use.
func CurrentBackend() parkers.Backend { return pool().backend }

// pool returns the current pool, installing the default backend on first
// use.
func pool() *backendPool {
	if p := currentPool.Load(); p != nil {
		return p
	}
	return installDefaultPool()
}

// installDefaultPool is pool's first-use path, kept out of line so that
// pool inlines into Park.
func installDefaultPool() *backendPool {
	b, err := defaultBackend()
	if err != nil {
		panic("lot: " + err.Error())
	}
	p := poolFor(b)
	currentPool.CompareAndSwap(nil, p)
	return currentPool.Load()
}

// defaultBackend is the backend used until SetBackend is called: the one
// parking_lot_core would pick on this platform (futex on Linux).
func defaultBackend() (parkers.Backend, error) {
	b := parkers.Default()
	if b.NewThread == nil {
		return b, fmt.Errorf("the platform parker %q is not registered", parkers.DefaultName())
	}
	if why := b.Why(); why != "" {
		return b, fmt.Errorf("the platform parker %q is not available: %s", b.Name, why)
	}
	return b, nil
}

// getThreadData takes a ThreadData from the pool, creating one (and growing
// the hash table, as upstream's ThreadData::new) if the pool is empty.
//
// It may lock every bucket (growHashtable), so it must not be called while
// holding a bucket lock; Park calls it before locking, and only when the
// pool looks empty.
func (p *backendPool) getThreadData() *threadData {
	if td := p.threads.pop(); td != nil {
		return td
	}
	td, n := p.newThreadData()
	growHashtable(n)
	return td
}

// newThreadData is upstream's ThreadData::new without its grow_hashtable:
// it creates a ThreadData and counts it in NUM_THREADS, and returns the
// new count, for which the caller must call growHashtable once it holds no
// bucket lock. It touches no bucket, so it may run under a bucket lock.
func (p *backendPool) newThreadData() (*threadData, uint) {
	td := threadSlab.alloc()
	td.pool = p
	td.parker = p.backend.NewThread()
	// NUM_THREADS counts ThreadData objects that exist; ours are never
	// destroyed (they are pooled), so it never decreases, and it equals the
	// largest number of threads that were ever inside Park at once (per
	// backend, summed).
	return td, uint(numThreads.Add(1))
}

func (p *backendPool) putThreadData(td *threadData) { p.threads.push(td) }

// getWLNode takes a WordLock node from the pool or makes one.
func (p *backendPool) getWLNode() *wlNode {
	if n := p.wlNodes.pop(); n != nil {
		return n
	}
	n := wlSlab.alloc()
	n.pool = p
	n.parker = p.backend.NewThread()
	return n
}

func (p *backendPool) putWLNode(n *wlNode) { p.wlNodes.push(n) }
