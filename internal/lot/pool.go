package lot

import "sync/atomic"

// This file holds the storage that replaces upstream's thread-locals: a slab
// that gives every node a small integer id and keeps it reachable forever,
// and a lock-free free list of ids. See doc.go, "How a ThreadData is found".

const (
	chunkBits = 8
	chunkSize = 1 << chunkBits // nodes per chunk
	maxChunks = 1 << 12        // 4096 chunks * 256 = 1,048,576 nodes at most
)

// poolLink is embedded first in every pooled node type.
type poolLink struct {
	// id is the node's index in its slab, fixed at allocation; never 0.
	id uint32
	// freeNext is the id of the next free node while the node is on a free
	// list; meaningless otherwise. Only the free list touches it.
	freeNext atomic.Uint32
}

func (l *poolLink) link() *poolLink { return l }

// linked is the constraint of nodeSlab's element: a pointer to a struct that
// embeds poolLink.
type linked[T any] interface {
	*T
	link() *poolLink
}

// nodeSlab gives out nodes that never move and are never freed, each with a
// non-zero 32-bit id, so that an id can stand for the node in a word that
// also carries flag bits (the WordLock state) without hiding a pointer from
// the garbage collector: the slab holds the only pointer the GC needs.
//
// Chunks are allocated lazily and published with a CAS, so at() needs no
// lock and alloc() needs none either.
type nodeSlab[T any, P linked[T]] struct {
	chunks [maxChunks]atomic.Pointer[[chunkSize]T]
	// last is the highest id handed out; id 0 is never used (it is the
	// "null" of the encodings built on ids).
	last atomic.Uint32
}

// at returns the node with the given id. The id must have come from alloc.
func (s *nodeSlab[T, P]) at(id uint32) P {
	return P(&s.chunks[id>>chunkBits].Load()[id&(chunkSize-1)])
}

// alloc returns a fresh, zeroed node and its id.
func (s *nodeSlab[T, P]) alloc() P {
	id := s.last.Add(1)
	c := id >> chunkBits
	if c >= maxChunks {
		panic("lot: more than 1<<20 thread nodes in use")
	}
	if s.chunks[c].Load() == nil {
		// Losing the race only wastes one chunk allocation.
		s.chunks[c].CompareAndSwap(nil, new([chunkSize]T))
	}
	p := s.at(id)
	p.link().id = id
	return p
}

// freeList is a Treiber stack of slab ids. The head word is tag<<32 | id;
// the tag is bumped on every change, so a pop that read a stale head (the
// ABA case: the node was popped and pushed back in between) fails its CAS.
type freeList[T any, P linked[T]] struct {
	slab *nodeSlab[T, P]
	head atomic.Uint64
}

// pop returns a free node, or nil if the list is empty.
func (f *freeList[T, P]) pop() P {
	for {
		old := f.head.Load()
		id := uint32(old)
		if id == 0 {
			return nil
		}
		p := f.slab.at(id)
		next := p.link().freeNext.Load()
		if f.head.CompareAndSwap(old, (old>>32+1)<<32|uint64(next)) {
			return p
		}
	}
}

// empty reports whether the list looked empty at the moment of the load;
// another thread may push or pop right after.
func (f *freeList[T, P]) empty() bool { return uint32(f.head.Load()) == 0 }

// push puts a node back on the list.
func (f *freeList[T, P]) push(p P) {
	l := p.link()
	for {
		old := f.head.Load()
		l.freeNext.Store(uint32(old))
		if f.head.CompareAndSwap(old, (old>>32+1)<<32|uint64(l.id)) {
			return
		}
	}
}
