package lot

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/longtest"
)

// The parking_lot_core test matrix (parking_lot.rs, mod tests): a FIFO
// semaphore built on Park / UnparkOne / UnparkAll, asserting that
// UnparkOne wakes the thread that parked first. Upstream identifies a
// thread by its thread-local ThreadData; ours are pooled, so each thread
// parks with its index as ParkToken and reports that index when it wakes.

type parkingTest struct {
	name          string
	repeats       int
	latches       int
	delay         time.Duration
	threads       int
	singleUnparks int
}

func parkingTests() []parkingTest {
	// Upstream's repeats, scaled down unless PARKBENCH_STRESS=1; the 10 ms
	// delays become 1 ms (they only let threads park before the unparks;
	// nothing is timed).
	d := time.Millisecond
	if stress() {
		d = 10 * time.Millisecond
	}
	r := func(n int) int {
		if stress() {
			return n
		}
		m := n / 20
		if longtest.Race {
			m = n / 100
		}
		if m < 1 {
			m = 1
		}
		return m
	}
	return []parkingTest{
		{"unpark_all_one_fast", r(10000), 1, 0, 1, 0},
		{"unpark_all_hundred_fast", r(100), 1, 0, 100, 0},
		{"unpark_one_one_fast", r(1000), 1, 0, 1, 1},
		{"unpark_one_hundred_fast", r(20), 1, 0, 100, 100},
		{"unpark_one_fifty_then_fifty_all_fast", r(50), 1, 0, 100, 50},
		{"unpark_all_one", r(100), 1, d, 1, 0},
		{"unpark_all_hundred", r(100), 1, d, 100, 0},
		{"unpark_one_one", r(10), 1, d, 1, 1},
		{"unpark_one_fifty", r(1), 1, d, 50, 50},
		{"unpark_one_fifty_then_fifty_all", r(2), 1, d, 100, 50},
		{"hundred_unpark_all_one_fast", r(100), 100, 0, 1, 0},
		{"hundred_unpark_all_one", r(1), 100, d, 1, 0},
	}
}

func TestParkingMatrix(t *testing.T) {
	participant(t)
	for _, pt := range parkingTests() {
		t.Run(pt.name, func(t *testing.T) {
			participant(t)
			for i := 0; i < pt.repeats; i++ {
				runParkingTest(t, pt.latches, pt.delay, pt.threads, pt.singleUnparks)
			}
		})
	}
}

func runParkingTest(t *testing.T, numLatches int, delay time.Duration, numThreads, numSingleUnparks int) {
	t.Helper()
	tests := make([]*singleLatchTest, numLatches)
	var wg sync.WaitGroup
	for i := range tests {
		tests[i] = &singleLatchTest{numThreads: numThreads}
		tests[i].lastAwoken.Store(-1)
		for j := 0; j < numThreads; j++ {
			lt, id := tests[i], j
			goThread(t, &wg, func() { lt.run(id) })
		}
	}
	for idx := 0; idx < numSingleUnparks; idx++ {
		time.Sleep(delay)
		for _, lt := range tests {
			lt.unparkOne(t, idx)
		}
	}
	for _, lt := range tests {
		lt.finish(t, numSingleUnparks)
	}
	waitTimeout(t, &wg, "parking test threads")
}

type singleLatchTest struct {
	// semaphore is a fair (FIFO) semaphore; it starts unavailable. Its
	// address is the park key.
	semaphore atomic.Int64
	numAwake  atomic.Int64
	// lastAwoken is the id of the last woken thread not yet checked, or -1.
	lastAwoken atomic.Int64
	numThreads int
}

func (s *singleLatchTest) key() unsafe.Pointer { return unsafe.Pointer(&s.semaphore) }

func (s *singleLatchTest) run(id int) {
	// Get one slot from the semaphore.
	s.down(id)
	// Report back that this thread woke up.
	s.lastAwoken.Store(int64(id))
	s.numAwake.Add(1)
}

func (s *singleLatchTest) unparkOne(t *testing.T, singleUnparkIndex int) {
	t.Helper()
	// lastAwoken is -1 except between up() and the end of this method.
	if v := s.lastAwoken.Load(); v != -1 {
		t.Fatalf("last_awoken = %d before up()", v)
	}
	var queue []int64
	forEachParked(s.key(), func(td *threadData) { queue = append(queue, int64(td.parkToken)) })
	if len(queue) > s.numThreads-singleUnparkIndex {
		t.Fatalf("%d threads queued, at most %d expected", len(queue), s.numThreads-singleUnparkIndex)
	}
	before := s.numAwake.Load()
	s.up(t)
	// Wait for a parked thread to wake and report.
	until(t, "unparked thread reports awake", func() bool { return s.numAwake.Load() == before+1 })
	last := s.lastAwoken.Load()
	if last == -1 {
		t.Fatal("no thread reported as awoken")
	}
	if len(queue) > 0 && queue[0] != last {
		t.Fatalf("Woke up wrong thread:\n\tqueue: %v\n\tlast awoken: %d", queue, last)
	}
	s.lastAwoken.Store(-1)
}

func (s *singleLatchTest) finish(t *testing.T, numSingleUnparks int) {
	t.Helper()
	// Threads not unparked one by one.
	left := s.numThreads - numSingleUnparks
	// Wake the rest with UnparkAll, in a loop: some may not have parked
	// yet.
	deadline := time.Now().Add(watchdogTimeout)
	for left > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("watchdog: %d threads never parked or woke", left)
		}
		waiting := numParked(s.key())
		if waiting > left {
			t.Fatalf("%d threads parked, at most %d expected", waiting, left)
		}
		before := s.numAwake.Load()
		n := UnparkAll(s.key(), DefaultUnparkToken)
		if n < waiting || n > left {
			t.Fatalf("UnparkAll = %d, want between %d and %d", n, waiting, left)
		}
		until(t, "UnparkAll'd threads report awake", func() bool { return s.numAwake.Load() == before+int64(n) })
		left -= n
		if n == 0 {
			runtime.Gosched()
		}
	}
	if got := s.numAwake.Load(); got != int64(s.numThreads) {
		t.Fatalf("num_awake = %d, want %d", got, s.numThreads)
	}
	if n := numParked(s.key()); n != 0 {
		t.Fatalf("%d threads still parked on the semaphore", n)
	}
}

func (s *singleLatchTest) down(id int) {
	if s.semaphore.Add(-1)+1 > 0 {
		// We acquired the semaphore.
		return
	}
	// We need to wait.
	Park(s.key(), func() bool { return true }, func() {}, func(unsafe.Pointer, bool) {},
		ParkToken(id), time.Time{})
}

func (s *singleLatchTest) up(t *testing.T) {
	if s.semaphore.Add(1)-1 < 0 {
		// Someone waits: hand the slot to them. Continue until we really
		// unparked someone: the thread may have decremented but not parked.
		deadline := time.Now().Add(watchdogTimeout)
		for {
			switch n := UnparkOne(s.key(), func(UnparkResult) UnparkToken { return DefaultUnparkToken }).UnparkedThreads; n {
			case 1:
				return
			case 0:
				if time.Now().After(deadline) {
					t.Fatal("watchdog: up() found nobody to unpark")
				}
				runtime.Gosched()
			default:
				t.Fatalf("Should not wake up %d threads", n)
			}
		}
	}
}

// --- the parts of park/unpark the matrix does not reach ---

func TestParkInvalid(t *testing.T) {
	participant(t)
	var key int
	calls := 0
	r := Park(unsafe.Pointer(&key), func() bool { calls++; return false },
		func() { t.Error("beforeSleep after failed validate") },
		func(unsafe.Pointer, bool) { t.Error("timedOut after failed validate") },
		DefaultParkToken, time.Time{})
	if r.Kind != ParkInvalid || r.IsUnparked() || calls != 1 {
		t.Fatalf("Park = %+v (validate calls %d), want Invalid", r, calls)
	}
}

func TestParkTimeout(t *testing.T) {
	participant(t)
	var key int
	k := unsafe.Pointer(&key)
	var gotKey unsafe.Pointer
	var gotLast, called bool
	r := Park(k, nil, nil, func(kk unsafe.Pointer, wasLast bool) { gotKey, gotLast, called = kk, wasLast, true },
		DefaultParkToken, time.Now().Add(time.Millisecond))
	if r.Kind != ParkTimedOut {
		t.Fatalf("Park = %v, want TimedOut", r.Kind)
	}
	if !called || gotKey != k || !gotLast {
		t.Fatalf("timedOut(%p, %v) called=%v, want (%p, true)", gotKey, gotLast, called, k)
	}
	if numParked(k) != 0 {
		t.Fatal("timed-out thread still queued")
	}
}

// TestParkTimeoutWasLast: two threads on one key, the one with the short
// deadline times out and must be told it was not the last.
func TestParkTimeoutWasLast(t *testing.T) {
	participant(t)
	var key int
	k := unsafe.Pointer(&key)
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		r := Park(k, nil, nil, nil, DefaultParkToken, time.Time{})
		if r != Unparked(7) {
			t.Errorf("long parker got %+v, want Unparked(7)", r)
		}
	})
	until(t, "first thread parked", func() bool { return numParked(k) == 1 })
	wasLast := true
	r := Park(k, nil, nil, func(_ unsafe.Pointer, last bool) { wasLast = last }, DefaultParkToken,
		time.Now().Add(time.Millisecond))
	if r.Kind != ParkTimedOut || wasLast {
		t.Fatalf("Park = %v wasLast=%v, want TimedOut, false", r.Kind, wasLast)
	}
	if n := UnparkAll(k, 7); n != 1 {
		t.Fatalf("UnparkAll = %d, want 1", n)
	}
	waitTimeout(t, &wg, "long parker")
}

func TestUnparkOneNobody(t *testing.T) {
	participant(t)
	var key int
	called := false
	r := UnparkOne(unsafe.Pointer(&key), func(r UnparkResult) UnparkToken {
		called = true
		if r != (UnparkResult{}) {
			t.Errorf("callback got %+v, want zero", r)
		}
		return 5
	})
	if !called || r != (UnparkResult{}) {
		t.Fatalf("UnparkOne = %+v called=%v", r, called)
	}
	if UnparkAll(unsafe.Pointer(&key), 0) != 0 {
		t.Fatal("UnparkAll on empty key")
	}
}

// parkN starts n threads that park on key with park tokens 0..n-1 and
// record the result; it returns when all are queued.
func parkN(t *testing.T, wg *sync.WaitGroup, key unsafe.Pointer, n int, results []ParkResult) {
	t.Helper()
	for i := 0; i < n; i++ {
		i := i
		// Park one at a time so that queue order is token order.
		goThread(t, wg, func() {
			results[i] = Park(key, nil, nil, nil, ParkToken(i), time.Time{})
		})
		until(t, fmt.Sprintf("thread %d parked", i), func() bool { return numParked(key) == i+1 })
	}
}

func tokensOn(key unsafe.Pointer) []int {
	var out []int
	forEachParked(key, func(td *threadData) { out = append(out, int(td.parkToken)) })
	return out
}

func TestUnparkOneResultAndToken(t *testing.T) {
	participant(t)
	var key int
	k := unsafe.Pointer(&key)
	var wg sync.WaitGroup
	res := make([]ParkResult, 2)
	parkN(t, &wg, k, 2, res)
	r := UnparkOne(k, func(r UnparkResult) UnparkToken {
		if r.UnparkedThreads != 1 || !r.HaveMoreThreads {
			t.Errorf("callback got %+v", r)
		}
		return 42
	})
	if r.UnparkedThreads != 1 || !r.HaveMoreThreads {
		t.Fatalf("first UnparkOne = %+v", r)
	}
	r = UnparkOne(k, func(UnparkResult) UnparkToken { return 43 })
	if r.UnparkedThreads != 1 || r.HaveMoreThreads {
		t.Fatalf("second UnparkOne = %+v", r)
	}
	waitTimeout(t, &wg, "unparked threads")
	if res[0] != Unparked(42) || res[1] != Unparked(43) {
		t.Fatalf("results %+v, want FIFO Unparked(42), Unparked(43)", res)
	}
}

func TestUnparkRequeueOps(t *testing.T) {
	participant(t)
	for _, tc := range []struct {
		op                        RequeueOp
		unparked, requeued        int
		more                      bool
		leftFrom, leftTo, unpkIdx []int
	}{
		{RequeueOpAbort, 0, 0, false, []int{0, 1, 2}, nil, nil},
		{RequeueOpUnparkOneRequeueRest, 1, 2, false, nil, []int{1, 2}, []int{0}},
		{RequeueOpRequeueAll, 0, 3, false, nil, []int{0, 1, 2}, nil},
		{RequeueOpUnparkOne, 1, 0, true, []int{1, 2}, nil, []int{0}},
		{RequeueOpRequeueOne, 0, 1, true, []int{1, 2}, []int{0}, nil},
	} {
		t.Run(tc.op.String(), func(t *testing.T) {
			participant(t)
			var from, to int
			kf, kt := unsafe.Pointer(&from), unsafe.Pointer(&to)
			var wg sync.WaitGroup
			res := make([]ParkResult, 3)
			parkN(t, &wg, kf, 3, res)
			var cbOp RequeueOp = 99
			r := UnparkRequeue(kf, kt, func() RequeueOp { return tc.op },
				func(op RequeueOp, r UnparkResult) UnparkToken { cbOp = op; return 9 })
			if r.UnparkedThreads != tc.unparked || r.RequeuedThreads != tc.requeued || r.HaveMoreThreads != tc.more {
				t.Fatalf("result %+v, want unparked %d requeued %d more %v", r, tc.unparked, tc.requeued, tc.more)
			}
			if tc.op != RequeueOpAbort && cbOp != tc.op {
				t.Fatalf("callback op %v", cbOp)
			}
			if tc.op == RequeueOpAbort && cbOp != 99 {
				t.Fatal("callback ran after Abort")
			}
			if r.UnparkedThreads == 0 && r.BeFair {
				t.Fatal("be_fair without an unparked thread")
			}
			if got := tokensOn(kf); fmt.Sprint(got) != fmt.Sprint(intsOrNil(tc.leftFrom)) {
				t.Fatalf("left on from: %v, want %v", got, tc.leftFrom)
			}
			if got := tokensOn(kt); fmt.Sprint(got) != fmt.Sprint(intsOrNil(tc.leftTo)) {
				t.Fatalf("on to: %v, want %v", got, tc.leftTo)
			}
			// Release everyone left.
			UnparkAll(kf, 1)
			UnparkAll(kt, 2)
			waitTimeout(t, &wg, "requeued threads")
			for _, i := range tc.unpkIdx {
				if res[i] != Unparked(9) {
					t.Fatalf("thread %d got %+v, want Unparked(9)", i, res[i])
				}
			}
			for _, i := range tc.leftTo {
				if res[i] != Unparked(2) {
					t.Fatalf("requeued thread %d got %+v, want Unparked(2) from the to key", i, res[i])
				}
			}
		})
	}
}

func intsOrNil(v []int) []int {
	if len(v) == 0 {
		return nil
	}
	return v
}

func numParkedTotal(keys ...unsafe.Pointer) int {
	n := 0
	for _, k := range keys {
		n += numParked(k)
	}
	return n
}

func TestUnparkFilter(t *testing.T) {
	participant(t)
	var key int
	k := unsafe.Pointer(&key)
	var wg sync.WaitGroup
	res := make([]ParkResult, 5)
	parkN(t, &wg, k, 5, res)
	var seen []ParkToken
	// Unpark even tokens, skip odd ones, stop at 4.
	r := UnparkFilter(k, func(tok ParkToken) FilterOp {
		seen = append(seen, tok)
		switch {
		case tok == 4:
			return FilterOpStop
		case tok%2 == 0:
			return FilterOpUnpark
		default:
			return FilterOpSkip
		}
	}, func(r UnparkResult) UnparkToken {
		if r.UnparkedThreads != 2 || !r.HaveMoreThreads {
			t.Errorf("callback got %+v", r)
		}
		return 11
	})
	if r.UnparkedThreads != 2 || !r.HaveMoreThreads {
		t.Fatalf("UnparkFilter = %+v", r)
	}
	if fmt.Sprint(seen) != "[0 1 2 3 4]" {
		t.Fatalf("filter saw %v", seen)
	}
	if got := tokensOn(k); fmt.Sprint(got) != "[1 3 4]" {
		t.Fatalf("left parked: %v", got)
	}
	UnparkAll(k, 12)
	waitTimeout(t, &wg, "filtered threads")
	for i, want := range []UnparkToken{11, 12, 11, 12, 12} {
		if res[i] != Unparked(want) {
			t.Fatalf("thread %d: %+v, want Unparked(%d)", i, res[i], want)
		}
	}
}

// TestTimeoutRacingRequeue parks with a short deadline on from while
// another thread requeues it onto to; whichever wins, the parked thread
// must end up either TimedOut (told the to key if it was requeued first)
// or Unparked, never lost or doubly queued.
func TestTimeoutRacingRequeue(t *testing.T) {
	participant(t)
	n := scale(2000, 100)
	var from, to int
	kf, kt := unsafe.Pointer(&from), unsafe.Pointer(&to)
	for i := 0; i < n; i++ {
		var wg sync.WaitGroup
		var res ParkResult
		var toKey unsafe.Pointer
		goThread(t, &wg, func() {
			res = Park(kf, nil, nil, func(k unsafe.Pointer, _ bool) { toKey = k }, DefaultParkToken,
				time.Now().Add(time.Duration(i%50)*time.Microsecond))
		})
		runtime.Gosched()
		UnparkRequeue(kf, kt, func() RequeueOp { return RequeueOpRequeueAll }, nil)
		UnparkAll(kt, 3)
		waitTimeout(t, &wg, "timeout/requeue racer")
		switch res.Kind {
		case ParkTimedOut:
			if toKey != kf && toKey != kt {
				t.Fatalf("timed out on unknown key %p", toKey)
			}
		case ParkUnparked:
			if res.Token != 3 {
				t.Fatalf("unparked with %d", res.Token)
			}
		default:
			t.Fatalf("result %+v", res)
		}
		if numParked(kf)+numParked(kt) != 0 {
			t.Fatal("thread left queued")
		}
	}
}

// --- the hash table ---

func TestHash(t *testing.T) {
	participant(t)
	// Fibonacci hashing keeps the top bits of key * 2^64/phi.
	if got := hash(1, 4); got != 0x9 {
		t.Fatalf("hash(1, 4) = %#x, want 0x9", got)
	}
	if got := hash(0, 10); got != 0 {
		t.Fatalf("hash(0) = %d", got)
	}
	for k := uintptr(0); k < 10000; k += 8 {
		if h := hash(k, 5); h >= 32 {
			t.Fatalf("hash out of range: %d", h)
		}
	}
}

func TestFairTimeoutXorshift(t *testing.T) {
	participant(t)
	// xorshift32 (13, 17, 5) from seed 1: Marsaglia's sequence.
	f := fairTimeout{seed: 1}
	want := []uint32{270369, 67634689, 2647435461}
	for i, w := range want {
		if got := f.genU32(); got != w {
			t.Fatalf("gen_u32 #%d = %d, want %d", i, got, w)
		}
	}
	// Once due, shouldTimeout fires and re-arms within 1 ms.
	f = fairTimeout{timeout: nanotime() - 1, seed: 7}
	if !f.shouldTimeout() {
		t.Fatal("due timeout did not fire")
	}
	if d := f.timeout - nanotime(); d >= int64(time.Millisecond) {
		t.Fatalf("re-armed %d ns ahead, want < 1 ms", d)
	}
}

func TestBucketLayout(t *testing.T) {
	participant(t)
	if s := unsafe.Sizeof(bucket{}); s != cacheLine {
		t.Fatalf("sizeof(bucket) = %d, want %d", s, cacheLine)
	}
	for _, n := range []uint{3, 6, 11, 40, 700, 3000} {
		ht := newHashTable(n, nil)
		if len(ht.entries) != int(nextPowerOfTwo(n*loadFactor)) || 1<<ht.hashBits != len(ht.entries) {
			t.Fatalf("table for %d threads: %d buckets, %d bits", n, len(ht.entries), ht.hashBits)
		}
		// Each bucket's fields end within the cache line they start in,
		// so no two buckets' fields share a line (newHashTable).
		for i := range ht.entries {
			if a := uintptr(unsafe.Pointer(&ht.entries[i])) % cacheLine; a+unsafe.Sizeof(bucketFields{}) > cacheLine {
				t.Fatalf("bucket %d of the table for %d threads starts at %d in its cache line: its fields cross into the next bucket's line", i, n, a)
			}
		}
		for i := range ht.entries {
			if ht.entries[i].fairTimeout.seed != uint32(i)+1 {
				t.Fatalf("bucket %d seed %d", i, ht.entries[i].fairTimeout.seed)
			}
		}
	}
	if got := len(getHashtable().entries); got < 16 {
		t.Fatalf("first table has %d buckets, want >= 16", got)
	}
}

// TestTableGrowthWhileParked parks more threads than the table has room
// for (more than 16/3 when run alone), so the table grows, under all bucket
// locks, while the earlier threads are queued in it; then every one must
// still be found, in FIFO order, and woken. The threads park through a
// fresh backend pool, so each of them creates a new ThreadData (upstream's
// ThreadData::new -> grow_hashtable).
func TestTableGrowthWhileParked(t *testing.T) {
	participant(t)
	fresh := chanBackend
	fresh.Name = fmt.Sprintf("lot-test-growth-%d", time.Now().UnixNano())
	withBackend(t, fresh, func(t *testing.T) {
		before := getHashtable()
		// Enough new threads to need more than len(before) buckets.
		n := len(before.entries)/loadFactor - int(numThreads.Load()) + 2
		if n < 8 {
			n = 8
		}
		var key int
		k := unsafe.Pointer(&key)
		var wg sync.WaitGroup
		res := make([]ParkResult, n)
		parkN(t, &wg, k, n, res)
		after := getHashtable()
		if len(after.entries) <= len(before.entries) {
			t.Fatalf("table did not grow: %d -> %d buckets with %d threads", len(before.entries), len(after.entries), numThreads.Load())
		}
		if int64(len(after.entries)) < loadFactor*numThreads.Load() {
			t.Fatalf("table has %d buckets for %d threads", len(after.entries), numThreads.Load())
		}
		// Old tables stay on the prev chain.
		found := false
		for p := after; p != nil; p = p.prev {
			found = found || p == before
		}
		if !found {
			t.Fatal("the replaced table is not on the prev chain")
		}
		got := tokensOn(k)
		if len(got) != n {
			t.Fatalf("%d of %d parked threads found after growth", len(got), n)
		}
		for i := range got {
			if got[i] != i {
				t.Fatalf("queue order after growth: %v", got)
			}
		}
		for i := 0; i < n; i++ {
			r := UnparkOne(k, func(UnparkResult) UnparkToken { return UnparkToken(100 + i) })
			if r.UnparkedThreads != 1 {
				t.Fatalf("UnparkOne #%d found nobody", i)
			}
		}
		waitTimeout(t, &wg, "threads parked across growth")
		for i := range res {
			if res[i] != Unparked(UnparkToken(100+i)) {
				t.Fatalf("thread %d woke with %+v: FIFO lost across growth", i, res[i])
			}
		}
	})
}

// TestParkPoolRanDry drives Park's rare path by hand: the free list looked
// non-empty before the bucket lock but is empty at the pop, so the
// ThreadData is created under the bucket lock and the table grows only
// after the thread has queued itself and unlocked the bucket (growing
// under the lock would deadlock: growHashtable locks every bucket). Every
// thread must still end up in a table with LOAD_FACTOR buckets per thread,
// in FIFO order, and be woken.
func TestParkPoolRanDry(t *testing.T) {
	participant(t)
	fresh := chanBackend
	fresh.Name = fmt.Sprintf("lot-test-dry-%d", time.Now().UnixNano())
	withBackend(t, fresh, func(t *testing.T) {
		before := getHashtable()
		n := len(before.entries)/loadFactor - int(numThreads.Load()) + 2
		if n < 8 {
			n = 8
		}
		var key int
		k := unsafe.Pointer(&key)
		var wg sync.WaitGroup
		res := make([]ParkResult, n)
		for i := 0; i < n; i++ {
			goThread(t, &wg, func() {
				p := pool()
				b := lockBucket(k)
				td, growTo := p.newThreadData()
				res[i] = park(td, b, k, nil, nil, ParkToken(i), time.Time{}, growTo)
				td.pool.putThreadData(td)
			})
			until(t, fmt.Sprintf("thread %d parked", i), func() bool { return numParked(k) == i+1 })
		}
		// The last growth runs after its thread queued: wait for it.
		until(t, "the table grew", func() bool {
			return int64(len(getHashtable().entries)) >= loadFactor*numThreads.Load()
		})
		if len(getHashtable().entries) <= len(before.entries) {
			t.Fatalf("table did not grow: %d buckets", len(before.entries))
		}
		got := tokensOn(k)
		for i := range got {
			if got[i] != i {
				t.Fatalf("queue order after growth: %v", got)
			}
		}
		if len(got) != n {
			t.Fatalf("%d of %d parked threads found after growth", len(got), n)
		}
		for i := 0; i < n; i++ {
			if r := UnparkOne(k, func(UnparkResult) UnparkToken { return UnparkToken(100 + i) }); r.UnparkedThreads != 1 {
				t.Fatalf("UnparkOne #%d found nobody", i)
			}
		}
		waitTimeout(t, &wg, "threads parked through the dry-pool path")
		for i := range res {
			if res[i] != Unparked(UnparkToken(100+i)) {
				t.Fatalf("thread %d woke with %+v", i, res[i])
			}
		}
	})
}
