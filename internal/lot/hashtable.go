package lot

import (
	"math/bits"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// The global hash table of buckets (parking_lot.rs, "HashTable").

// loadFactor is upstream's LOAD_FACTOR: the table keeps at least 3
// buckets per ThreadData, so that the average queue holds well under one
// thread.
const loadFactor = 3

// cacheLine is the bucket alignment and size (upstream: repr(align(64))).
const cacheLine = 64

var (
	// numThreads is upstream's NUM_THREADS: how many ThreadData exist.
	numThreads atomic.Int64
	// hashtable is upstream's HASHTABLE; nil until first use. It is only
	// replaced while every bucket of the table it points to is locked.
	hashtable atomic.Pointer[hashTable]
)

type hashTable struct {
	// entries are the buckets, inline (upstream: Box<[Bucket]>), each
	// cache-line aligned (newHashTable).
	entries []bucket
	// hashBits is log2(len(entries)).
	hashBits uint
	// prev is the table this one replaced. Upstream keeps it "only to keep
	// leak detectors happy" and never frees a table. With a GC a thread
	// that still holds the old table keeps it alive by itself; we keep the
	// chain anyway so no table is ever collected, as upstream.
	prev *hashTable
}

// bucketFields is the payload of a bucket; bucket pads it to 64 bytes.
type bucketFields struct {
	// mutex protects everything below.
	mutex wordLock
	// queueHead and queueTail are the FIFO list of threads parked on keys
	// that hash here, linked through threadData.nextInQueue. Only read or
	// written with mutex held.
	queueHead *threadData
	queueTail *threadData
	// fairTimeout decides be_fair; mutex held.
	fairTimeout fairTimeout
}

// bucket is one hash bucket, padded to a cache line so that two buckets'
// fields never share one (false sharing between unrelated keys' locks;
// newHashTable says how the array sits on the lines).
type bucket struct {
	bucketFields
	_ [cacheLine - unsafe.Sizeof(bucketFields{})%cacheLine]byte
}

// fairTimeout is upstream's FairTimeout: the next time at which be_fair
// should be set, and the xorshift32 state for the next interval.
type fairTimeout struct {
	timeout int64 // monotonic nanoseconds, see nanotime
	seed    uint32
}

// shouldTimeout reports whether a fair unlock is due; if so it re-arms the
// timeout at now + U[0, 1ms) (an average of 0.5 ms).
func (f *fairTimeout) shouldTimeout() bool {
	now := nanotime()
	if now > f.timeout {
		f.timeout = now + int64(f.genU32()%1_000_000)
		return true
	}
	return false
}

// genU32 is Marsaglia's xorshift32 (13, 17, 5), as upstream's gen_u32.
func (f *fairTimeout) genU32() uint32 {
	f.seed ^= f.seed << 13
	f.seed ^= f.seed >> 17
	f.seed ^= f.seed << 5
	return f.seed
}

// monoBase anchors nanotime; time.Since reads the monotonic clock.
var monoBase = time.Now()

// nanotime is the monotonic clock in nanoseconds (upstream: Instant::now).
func nanotime() int64 { return int64(time.Since(monoBase)) }

// newHashTable builds a table for numThreads threads: the next power of
// two of numThreads*LOAD_FACTOR buckets. Bucket seeds are i+1, because a
// xorshift seed must not be zero; every timeout starts at now.
func newHashTable(numThreads uint, prev *hashTable) *hashTable {
	size := nextPowerOfTwo(numThreads * loadFactor)
	// The buckets are one array, as upstream's, so finding a key's bucket
	// is a multiply and an indexed address, with no load between the
	// table and the bucket's lock word (a []*bucket cost one more
	// dependent load before each bucket CAS, twice per self-wake pair).
	// Go does not align the array to 64 bytes: a small object with
	// pointers carries an 8-byte malloc header (Go 1.22 on), a large one
	// starts on a page. Every bucket is 64 bytes, so all sit at the same
	// offset within their cache lines; what keeps two buckets' locks and
	// queues off one line (false sharing) is that the used fields, at that
	// offset, end within the line: the rest of the line is padding, and
	// the next bucket's fields start on the next line. TestBucketLayout
	// checks this for small and large tables.
	entries := make([]bucket, size)
	if off := uintptr(unsafe.Pointer(&entries[0])) % cacheLine; off+unsafe.Sizeof(bucketFields{}) > cacheLine {
		panic("lot: hash table buckets would share cache lines (array at offset " + strconv.Itoa(int(off)) + " in its line)")
	}
	now := nanotime()
	for i := range entries {
		entries[i].fairTimeout = fairTimeout{timeout: now, seed: uint32(i) + 1}
	}
	return &hashTable{entries: entries, hashBits: uint(bits.TrailingZeros(size)), prev: prev}
}

func nextPowerOfTwo(n uint) uint {
	if n <= 1 {
		return 1
	}
	return 1 << (bits.UintSize - bits.LeadingZeros(n-1))
}

// getHashtable returns the latest table, creating the first one (for
// LOAD_FACTOR threads: 16 buckets) if there is none.
func getHashtable() *hashTable {
	if t := hashtable.Load(); t != nil {
		return t
	}
	return createHashtable()
}

// createHashtable is getHashtable's first-use path, out of line so that
// getHashtable inlines into lockBucket and the unpark functions.
func createHashtable() *hashTable {
	t := newHashTable(loadFactor, nil)
	if hashtable.CompareAndSwap(nil, t) {
		return t
	}
	// Another thread created the table first; ours is garbage.
	return hashtable.Load()
}

// growHashtable grows the table so it has at least LOAD_FACTOR buckets per
// thread. It runs when a ThreadData is created, which is rare.
func growHashtable(numThreads uint) {
	var old *hashTable
	for {
		old = getHashtable()
		// Check if we need to resize the existing table.
		if uint(len(old.entries)) >= loadFactor*numThreads {
			return
		}
		// Lock all buckets in the old table.
		for i := range old.entries {
			old.entries[i].mutex.lock()
		}
		// Check that our table is still the latest one: another thread
		// could have grown it between our load and the locks.
		if hashtable.Load() == old {
			break
		}
		// Unlock the buckets and try again.
		for i := range old.entries {
			old.entries[i].mutex.unlock()
		}
	}

	// Create the new table.
	nt := newHashTable(numThreads, old)

	// Move the entries from the old table to the new one, each queue in
	// order, so FIFO order per key is kept.
	for i := range old.entries {
		rehashBucketInto(&old.entries[i], nt)
	}

	// Window: all old buckets locked, entries moved, new table not yet
	// published; every other locker waits on an old bucket.
	chaos.Point("lot.hashtable.grow")

	// Publish the new table. No races are possible here: any other thread
	// trying to grow the table is blocked on the old buckets' locks, and a
	// thread that locks an old bucket after this store sees the table
	// changed and retries (lock_bucket).
	hashtable.Store(nt)

	// Unlock all buckets in the old table.
	for i := range old.entries {
		old.entries[i].mutex.unlock()
	}
}

// rehashBucketInto moves every thread of b, in order, to the tail of its
// bucket in table. Both tables' buckets are covered by b's lock: the new
// table is not published yet.
func rehashBucketInto(b *bucket, table *hashTable) {
	current := b.queueHead
	for current != nil {
		next := current.nextInQueue
		nb := &table.entries[hash(uintptr(current.loadKey()), table.hashBits)]
		if nb.queueTail == nil {
			nb.queueHead = current
		} else {
			nb.queueTail.nextInQueue = current
		}
		nb.queueTail = current
		current.nextInQueue = nil
		current = next
	}
}

// hash is Fibonacci hashing: multiply by 2^64/phi and keep the top bits.
// The key's address is used only here, transiently: the key itself stays
// an unsafe.Pointer everywhere it is stored.
//
// bitsUsed is at least 4 (the first table has 16 buckets), so the shift is
// below the word size; the mask says so to the compiler, which otherwise
// guards a shift of 64 or more (four more instructions per lookup).
func hash(key uintptr, bitsUsed uint) uint {
	if bits.UintSize == 64 {
		return uint((uint64(key) * 0x9E3779B97F4A7C15) >> ((64 - bitsUsed) & 63))
	}
	return uint((uint32(key) * 0x9E3779B9) >> ((32 - bitsUsed) & 31))
}

// lockBucket locks the bucket for key in the current table: upstream's
// lock_bucket (parking_lot core/src/parking_lot.rs:358), as a first try
// (tryLockBucket) and upstream's loop after it (lockBucketSlow).
func lockBucket(key unsafe.Pointer) *bucket {
	b, current := tryLockBucket(key)
	if current {
		return b
	}
	return lockBucketSlow(key, b)
}

// tryLockBucket is lock_bucket's first iteration: load the table, CAS the
// key's bucket's lock, re-check the table. It returns the bucket it locked
// (nil if the bucket was taken or there is no table yet) and whether the
// table is still the current one (then the lock we hold prevents any
// rehash, and we are done). A locked bucket of a stale table goes to
// lockBucketSlow, which unlocks it.
//
// Go inlines it (cost under the budget of 80) where rustc inlines all of
// lock_bucket: Park and UnparkOne call it directly, so the self-wake pair
// makes no call and builds no frame before each bucket CAS, and nothing
// live is stored to the stack before it (on x86 a locked instruction
// waits for every earlier store to drain). docs/findings.md, "The port's
// fast paths", counts it.
func tryLockBucket(key unsafe.Pointer) (*bucket, bool) {
	if t := hashtable.Load(); t != nil {
		b := &t.entries[hash(uintptr(key), t.hashBits)]
		// Window: table loaded, bucket not locked; a growth here makes the
		// re-check fail and retry.
		chaos.Point("lot.hashtable.beforelock")
		if b.mutex.state.CompareAndSwap(0, wlLockedBit) {
			return b, hashtable.Load() == t
		}
	}
	return nil, false
}

// lockBucketSlow is lock_bucket's loop, after a first try that failed;
// held is the bucket of a stale table that the first try locked, or nil.
func lockBucketSlow(key unsafe.Pointer, held *bucket) *bucket {
	if held != nil {
		held.mutex.unlock()
	}
	for {
		t := getHashtable()
		b := &t.entries[hash(uintptr(key), t.hashBits)]
		chaos.Point("lot.hashtable.beforelock")
		b.mutex.lock()
		// If nobody rehashed the table before we got the lock, we are
		// good: the lock we hold prevents any rehash.
		if hashtable.Load() == t {
			return b
		}
		b.mutex.unlock()
	}
}

// lockBucketChecked locks the bucket of td's key, re-checking after the lock
// that the key did not change (a requeue changes it, under the lock of the
// bucket it was in). It returns the key it locked for.
func lockBucketChecked(td *threadData) (unsafe.Pointer, *bucket) {
	for {
		t := getHashtable()
		key := td.loadKey()
		b := &t.entries[hash(uintptr(key), t.hashBits)]
		// Window: table and key loaded, bucket not locked (a growth or a
		// requeue here makes the re-check fail).
		chaos.Point("lot.hashtable.beforelock")
		b.mutex.lock()
		// The key cannot change once we hold the right bucket's lock, so
		// retry until table and key are both unchanged.
		if hashtable.Load() == t && td.loadKey() == key {
			return key, b
		}
		b.mutex.unlock()
	}
}

// lockBucketPair locks the buckets of key1 and key2, the lower index first
// (a global order, so two pair-lockers cannot deadlock), and only once if
// both keys hash to the same bucket. It returns them in (key1, key2) order.
func lockBucketPair(key1, key2 unsafe.Pointer) (*bucket, *bucket) {
	for {
		t := getHashtable()
		h1 := hash(uintptr(key1), t.hashBits)
		h2 := hash(uintptr(key2), t.hashBits)
		first := h1
		if h2 < h1 {
			first = h2
		}
		b1 := &t.entries[first]
		chaos.Point("lot.hashtable.beforelock")
		b1.mutex.lock()
		if hashtable.Load() == t {
			switch {
			case h1 == h2:
				return b1, b1
			case h1 < h2:
				b2 := &t.entries[h2]
				b2.mutex.lock()
				return b1, b2
			default:
				b2 := &t.entries[h1]
				b2.mutex.lock()
				return b2, b1
			}
		}
		b1.mutex.unlock()
	}
}

// unlockBucketPair unlocks what lockBucketPair locked.
func unlockBucketPair(b1, b2 *bucket) {
	b1.mutex.unlock()
	if b2 != b1 {
		b2.mutex.unlock()
	}
}
