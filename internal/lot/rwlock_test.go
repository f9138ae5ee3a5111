//lint:file-ignore SA2001 empty lock/unlock pairs exercise the lock itself

package lot

import (
	"math/rand"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Ports of parking_lot src/rwlock.rs's tests (the RwLock<T> wrapper's
// data tests become a plain int guarded by the raw lock), of Go's
// sync/rwmutex_test.go, and tests of the raw paths the wrappers never
// reach alone (timeouts, misuse, writer priority).

var (
	_ sync.Locker = (*RwLock)(nil)
	_ sync.Locker = (*FairMutex)(nil)
)

// rwQuiet checks rw is unlocked with nothing parked on either key.
func rwQuiet(t *testing.T, rw *RwLock) {
	t.Helper()
	if s := rw.state.Load(); s != 0 {
		t.Errorf("state %#x, want 0", s)
	}
	if n := numParked(rw.mainKey()) + numParked(rw.writerQKey()); n != 0 {
		t.Errorf("%d threads still parked", n)
	}
}

// upstream smoke
func TestRwLockSmoke(t *testing.T) {
	participant(t)
	var l RwLock
	l.RLock()
	l.RUnlock()
	l.Lock()
	l.Unlock()
	l.LockUpgradable()
	l.UnlockUpgradable()
	l.RLock()
	l.RLock()
	l.RUnlock()
	l.RUnlock()
	l.RLock()
	l.LockUpgradable()
	l.RUnlock()
	l.UnlockUpgradable()
	l.Lock()
	l.Unlock()
	rwQuiet(t, &l)
}

// upstream frob: N threads, each mostly reading, writing 1/N of the time.
func TestRwLockFrob(t *testing.T) {
	participant(t)
	const n = 10
	m := scale(1000, 300)
	var l RwLock
	var wg sync.WaitGroup
	var inside atomic.Int64
	for i := 0; i < n; i++ {
		seed := int64(i)
		goThread(t, &wg, func() {
			rng := rand.New(rand.NewSource(seed))
			for j := 0; j < m; j++ {
				if rng.Intn(n) == 0 {
					l.Lock()
					if inside.Add(1000) != 1000 {
						t.Error("writer not alone")
					}
					inside.Add(-1000)
					l.Unlock()
				} else {
					l.RLock()
					if inside.Add(1) >= 1000 {
						t.Error("reader with a writer")
					}
					inside.Add(-1)
					l.RUnlock()
				}
			}
		})
	}
	waitTimeout(t, &wg, "frob")
	rwQuiet(t, &l)
}

// upstream test_rw_arc_no_poison_{wr,ww,rr,rw} and
// test_rw_arc_access_in_unwind: a panic while holding the lock, with the
// unlock deferred (Go's guard), leaves it usable; no poisoning.
func TestRwLockNoPoison(t *testing.T) {
	participant(t)
	var l RwLock
	for _, first := range []string{"w", "r"} {
		for _, second := range []string{"w", "r"} {
			func() {
				defer func() { _ = recover() }()
				if first == "w" {
					l.Lock()
					defer l.Unlock()
				} else {
					l.RLock()
					defer l.RUnlock()
				}
				panic("boom")
			}()
			if second == "w" {
				l.Lock()
				l.Unlock()
			} else {
				l.RLock()
				l.RUnlock()
			}
			rwQuiet(t, &l)
		}
	}
	// access in unwind: a deferred write lock runs while panicking
	val := 1
	func() {
		defer func() { _ = recover() }()
		defer func() { l.Lock(); val++; l.Unlock() }()
		panic("boom")
	}()
	l.RLock()
	if val != 2 {
		t.Errorf("val %d, want 2", val)
	}
	l.RUnlock()
}

// upstream test_ruw_arc: a writer, upgradable readers that upgrade, and
// readers that try to catch the writers in the act.
func TestRwLockRUWArc(t *testing.T) {
	participant(t)
	var l RwLock
	var val atomic.Int64 // guarded by l; atomic only so a broken lock shows as a failure, not a race report
	var wg, wwg sync.WaitGroup
	goThread(t, &wwg, func() {
		for i := 0; i < 10; i++ {
			l.Lock()
			tmp := val.Load()
			val.Store(-1)
			runtime.Gosched()
			val.Store(tmp + 1)
			l.Unlock()
		}
	})
	for i := 0; i < 5; i++ {
		goThread(t, &wg, func() {
			l.LockUpgradable()
			tmp := val.Load()
			if tmp < 0 {
				t.Error("upgradable reader saw a writer in the act")
			}
			runtime.Gosched()
			l.Upgrade()
			if val.Load() != tmp {
				t.Error("value changed across Upgrade")
			}
			val.Store(-1)
			runtime.Gosched()
			val.Store(tmp + 1)
			l.Unlock()
		})
	}
	for i := 0; i < 5; i++ {
		goThread(t, &wg, func() {
			l.RLock()
			if val.Load() < 0 {
				t.Error("reader saw a writer in the act")
			}
			l.RUnlock()
		})
	}
	waitTimeout(t, &wg, "readers")
	waitTimeout(t, &wwg, "writer")
	l.RLock()
	if v := val.Load(); v != 15 {
		t.Errorf("val %d, want 15", v)
	}
	l.RUnlock()
	rwQuiet(t, &l)
}

// upstream test_rw_arc: one writer holding the lock across ten updates,
// readers trying to catch it.
func TestRwLockRWArc(t *testing.T) {
	participant(t)
	var l RwLock
	var val atomic.Int64
	var wg, wwg sync.WaitGroup
	goThread(t, &wwg, func() {
		l.Lock()
		for i := 0; i < 10; i++ {
			tmp := val.Load()
			val.Store(-1)
			runtime.Gosched()
			val.Store(tmp + 1)
		}
		l.Unlock()
	})
	for i := 0; i < 5; i++ {
		goThread(t, &wg, func() {
			l.RLock()
			if val.Load() < 0 {
				t.Error("reader saw the writer in the act")
			}
			l.RUnlock()
		})
	}
	waitTimeout(t, &wg, "readers")
	waitTimeout(t, &wwg, "writer")
	if v := val.Load(); v != 10 {
		t.Errorf("val %d, want 10", v)
	}
	rwQuiet(t, &l)
}

// upstream test_rwlock_try_read, test_rwlock_try_write,
// test_rwlock_try_upgrade, test_rw_write_is_locked.
func TestRwLockTry(t *testing.T) {
	participant(t)
	var l RwLock
	type hold struct {
		name          string
		lock, unlock  func()
		read, write   bool // TryRLock, TryLock succeed
		upgradable    bool // TryLockUpgradable succeeds
		exclusiveHeld bool
	}
	for _, h := range []hold{
		{"read", l.RLock, l.RUnlock, true, false, true, false},
		{"upgradable", l.LockUpgradable, l.UnlockUpgradable, true, false, false, false},
		{"write", l.Lock, l.Unlock, false, false, false, true},
	} {
		h.lock()
		if got := l.TryRLock(); got != h.read {
			t.Errorf("%s held: TryRLock %v", h.name, got)
		} else if got {
			l.RUnlock()
		}
		if got := l.TryLock(); got != h.write {
			t.Errorf("%s held: TryLock %v", h.name, got)
		}
		if got := l.TryLockUpgradable(); got != h.upgradable {
			t.Errorf("%s held: TryLockUpgradable %v", h.name, got)
		} else if got {
			l.UnlockUpgradable()
		}
		if !l.IsLocked() || l.IsLockedExclusive() != h.exclusiveHeld {
			t.Errorf("%s held: IsLocked %v IsLockedExclusive %v", h.name, l.IsLocked(), l.IsLockedExclusive())
		}
		h.unlock()
	}
	if l.IsLocked() {
		t.Error("IsLocked after every unlock")
	}
	rwQuiet(t, &l)
}

// upstream test_rwlock_downgrade: 8 threads write, downgrade, and check
// that nobody wrote in between.
func TestRwLockDowngrade(t *testing.T) {
	participant(t)
	var l RwLock
	var val atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		goThread(t, &wg, func() {
			for j := 0; j < 100; j++ {
				l.Lock()
				cur := val.Add(1)
				l.Downgrade()
				if val.Load() != cur {
					t.Error("a writer got in across Downgrade")
				}
				l.RUnlock()
			}
		})
	}
	waitTimeout(t, &wg, "downgraders")
	if v := val.Load(); v != 800 {
		t.Errorf("val %d, want 800", v)
	}
	rwQuiet(t, &l)
}

// DowngradeToUpgradable and DowngradeUpgradable: the holder keeps its
// place, readers waiting for the writer get in.
func TestRwLockDowngradeUpgradable(t *testing.T) {
	participant(t)
	var l RwLock
	l.Lock()
	var wg sync.WaitGroup
	var readers atomic.Int32
	for i := 0; i < 3; i++ {
		goThread(t, &wg, func() {
			l.RLock()
			readers.Add(1)
			l.RUnlock()
		})
	}
	until(t, "readers parked", func() bool { return numParked(l.mainKey()) == 3 })
	l.DowngradeToUpgradable()
	waitTimeout(t, &wg, "readers after DowngradeToUpgradable")
	if l.TryLockUpgradable() {
		t.Error("second upgradable lock while one is held")
	}
	l.DowngradeUpgradable()
	if !l.TryLockUpgradable() {
		t.Error("no upgradable lock after DowngradeUpgradable")
	}
	l.UnlockUpgradable()
	l.RUnlock()
	rwQuiet(t, &l)
}

// upstream test_rwlock_recursive, with the wait for the writer replaced by
// a check that it is waiting: a normal read would block behind it (writer
// priority), RLockRecursive does not.
func TestRwLockRecursive(t *testing.T) {
	participant(t)
	var l RwLock
	l.RLock()
	var wg sync.WaitGroup
	goThread(t, &wg, func() { l.Lock(); l.Unlock() })
	until(t, "writer waiting for the reader", func() bool { return numParked(l.writerQKey()) == 1 })
	// A normal read would block here since there is a pending writer.
	if l.TryRLock() {
		t.Fatal("TryRLock got past a waiting writer")
	}
	if l.TryRLockFor(time.Millisecond) {
		t.Fatal("TryRLockFor got past a waiting writer")
	}
	l.RLockRecursive()
	l.RUnlock()
	l.RUnlock()
	waitTimeout(t, &wg, "writer")
	rwQuiet(t, &l)
}

// Writer priority: with readers overlapping so that the lock is never
// free of readers, a writer still gets in, each time (writers make
// progress under a steady read load, the claim lock --rwlock's
// rwlock-writers-progress checks).
func TestRwLockWriterNotStarved(t *testing.T) {
	participant(t)
	var l RwLock
	var stop atomic.Bool
	var wg, wwg sync.WaitGroup
	for i := 0; i < 4; i++ {
		goThread(t, &wg, func() {
			for !stop.Load() {
				l.RLock()
				runtime.Gosched()
				l.RUnlock()
			}
		})
	}
	writes := scale(200, 50)
	goThread(t, &wwg, func() {
		for i := 0; i < writes; i++ {
			l.Lock()
			l.Unlock()
		}
	})
	waitTimeout(t, &wwg, "writer under a steady read load")
	stop.Store(true)
	waitTimeout(t, &wg, "readers")
	rwQuiet(t, &l)
}

// Timeouts on every slow path; the last timed-out waiter clears PARKED,
// a writer timing out waiting for readers gives WRITER back, an upgrade
// timing out leaves the upgradable lock held.
func TestRwLockTimeouts(t *testing.T) {
	participant(t)
	var l RwLock
	d := time.Millisecond
	l.Lock()
	if l.TryRLockFor(d) || l.TryLockFor(d) || l.TryLockUpgradableFor(d) || l.TryRLockRecursiveFor(d) {
		t.Fatal("timed lock got a write-locked RwLock")
	}
	past := time.Now().Add(-time.Second)
	if l.TryRLockUntil(past) || l.TryLockUntil(time.Time{}) || l.TryLockUpgradableUntil(past) || l.TryRLockRecursiveUntil(past) {
		t.Fatal("timed lock with a past deadline got a write-locked RwLock")
	}
	if s := l.state.Load(); s != rwWriterBit {
		t.Fatalf("state %#x after timeouts, want WRITER only", s)
	}
	l.Unlock()

	// A writer times out in wait_for_readers: WRITER goes back, and the
	// readers that queued behind it are woken.
	l.RLock()
	var wg sync.WaitGroup
	res := make(chan bool, 1)
	var writerDone atomic.Bool
	goThread(t, &wg, func() { res <- l.TryLockFor(200 * time.Millisecond); writerDone.Store(true) })
	// Under load the writer may time out before we look: then the reader
	// below finds nobody to queue behind, which is also correct.
	until(t, "writer waiting for the reader", func() bool {
		return numParked(l.writerQKey()) == 1 || writerDone.Load()
	})
	goThread(t, &wg, func() { l.RLock(); l.RUnlock() })
	waitTimeout(t, &wg, "timed writer and the reader behind it")
	if <-res {
		t.Fatal("writer got the lock while a reader held it")
	}
	if s := l.state.Load(); s != rwOneReader {
		t.Fatalf("state %#x after the writer timed out, want one reader", s)
	}
	l.RUnlock()

	// An upgrade times out while another reader holds on.
	l.LockUpgradable()
	l.RLock()
	if l.TryUpgradeFor(d) || l.TryUpgradeUntil(past) {
		t.Fatal("upgrade while another reader holds the lock")
	}
	if s := l.state.Load(); s != 2*rwOneReader|rwUpgradableBit {
		t.Fatalf("state %#x after the upgrade timed out", s)
	}
	l.RUnlock()
	if !l.TryUpgrade() {
		t.Fatal("TryUpgrade as the only reader failed")
	}
	l.Unlock()
	rwQuiet(t, &l)
}

// Fair unlocks and bumps hand the lock to the parked threads.
func TestRwLockFairAndBump(t *testing.T) {
	participant(t)
	var l RwLock
	for _, mode := range []string{"UnlockFair", "BumpExclusive", "UnlockUpgradableFair", "BumpUpgradable", "BumpShared"} {
		var wg sync.WaitGroup
		got := make(chan struct{}, 1)
		switch mode {
		case "UnlockFair", "BumpExclusive":
			l.Lock()
		case "BumpShared":
			l.RLock()
		default:
			l.LockUpgradable()
		}
		goThread(t, &wg, func() { l.Lock(); got <- struct{}{}; l.Unlock() })
		until(t, "writer parked", func() bool { return numParked(l.mainKey())+numParked(l.writerQKey()) == 1 })
		switch mode {
		case "UnlockFair":
			l.UnlockFair()
		case "BumpExclusive":
			l.BumpExclusive()
			l.Unlock()
		case "UnlockUpgradableFair":
			l.UnlockUpgradableFair()
		case "BumpUpgradable":
			l.BumpUpgradable()
			l.UnlockUpgradable()
		case "BumpShared":
			l.BumpShared()
			l.RUnlockFair()
		}
		waitTimeout(t, &wg, mode)
		<-got
		rwQuiet(t, &l)
	}
}

// Misuse panics before touching the state, and the lock stays usable
// with nothing parked (a recovered panic leaves it usable).
func TestRwLockMisuse(t *testing.T) {
	participant(t)
	var l RwLock
	mustPanic := func(what string, f func()) {
		t.Helper()
		before := l.state.Load()
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", what)
				}
			}()
			f()
		}()
		if s := l.state.Load(); s != before {
			t.Errorf("%s changed the state %#x -> %#x", what, before, s)
		}
	}
	mustPanic("Unlock of unlocked", l.Unlock)
	mustPanic("UnlockFair of unlocked", l.UnlockFair)
	mustPanic("RUnlock of unlocked", l.RUnlock)
	mustPanic("UnlockUpgradable of unlocked", l.UnlockUpgradable)
	mustPanic("Upgrade of unlocked", l.Upgrade)
	mustPanic("Downgrade of unlocked", l.Downgrade)
	l.Lock()
	mustPanic("RUnlock from a writer", l.RUnlock)
	mustPanic("UnlockUpgradable from a writer", l.UnlockUpgradable)
	l.Unlock()
	l.RLock()
	mustPanic("Unlock from a reader", l.Unlock)
	mustPanic("Upgrade from a reader", l.Upgrade)
	l.RUnlock()
	rwQuiet(t, &l)
	l.Lock()
	l.Unlock()
	l.RLock()
	l.RUnlock()
	rwQuiet(t, &l)
}

// upstream tests/issue_392.rs and test_issue_430 (with_upgraded twice on
// one upgradable guard: upgrade, then downgrade_to_upgradable, twice).
func TestRwLockIssue392(t *testing.T) {
	participant(t)
	var l RwLock
	l.LockUpgradable()
	for i := 0; i < 2; i++ {
		l.Upgrade()
		l.DowngradeToUpgradable()
	}
	l.UnlockUpgradable()
	rwQuiet(t, &l)
}

// upstream test_rwlock_debug (the data is not ours to print).
func TestRwLockString(t *testing.T) {
	var l RwLock
	if s := l.String(); s != "RwLock { .. }" {
		t.Errorf("String %q", s)
	}
	l.Lock()
	if s := l.String(); s != "RwLock { data: <locked> }" {
		t.Errorf("String %q", s)
	}
	l.Unlock()
}

// ---- Go's sync/rwmutex_test.go, adapted ----

// Go's TestParallelReaders: every reader holds the lock at once.
func TestRwLockParallelReaders(t *testing.T) {
	participant(t)
	for _, n := range []int{1, 3, 4} {
		var l RwLock
		locked := make(chan bool, n)
		clocked := make(chan bool)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			goThread(t, &wg, func() {
				l.RLock()
				locked <- true
				<-clocked
				l.RUnlock()
			})
		}
		for i := 0; i < n; i++ {
			<-locked
		}
		for i := 0; i < n; i++ {
			clocked <- true
		}
		waitTimeout(t, &wg, "parallel readers")
		rwQuiet(t, &l)
	}
}

func rwReader(l *RwLock, iters int, activity *int32, t *testing.T) {
	for i := 0; i < iters; i++ {
		l.RLock()
		n := atomic.AddInt32(activity, 1)
		if n < 1 || n >= 10000 {
			l.RUnlock()
			t.Errorf("rlock(%d)", n)
			return
		}
		for i := 0; i < 100; i++ {
		}
		atomic.AddInt32(activity, -1)
		l.RUnlock()
	}
}

func rwWriter(l *RwLock, iters int, activity *int32, t *testing.T) {
	for i := 0; i < iters; i++ {
		l.Lock()
		n := atomic.AddInt32(activity, 10000)
		if n != 10000 {
			l.Unlock()
			t.Errorf("wlock(%d)", n)
			return
		}
		for i := 0; i < 100; i++ {
		}
		atomic.AddInt32(activity, -10000)
		l.Unlock()
	}
}

// hammerRwLock is Go's HammerRWMutex: two writers and numReaders readers,
// each started by spawn (goThread: locked to a thread; goPlain: not).
func hammerRwLock(t *testing.T, spawn func(testing.TB, *sync.WaitGroup, func()), numReaders, iters int) {
	var activity int32
	var l RwLock
	var wg sync.WaitGroup
	spawn(t, &wg, func() { rwWriter(&l, iters, &activity, t) })
	i := 0
	for ; i < numReaders/2; i++ {
		spawn(t, &wg, func() { rwReader(&l, iters, &activity, t) })
	}
	spawn(t, &wg, func() { rwWriter(&l, iters, &activity, t) })
	for ; i < numReaders; i++ {
		spawn(t, &wg, func() { rwReader(&l, iters, &activity, t) })
	}
	waitTimeout(t, &wg, "hammer")
	rwQuiet(t, &l)
}

// Go's TestRWMutex, over every backend (Go's GOMAXPROCS 1/4/10 matrix is
// the backends' here: withBackend raises GOMAXPROCS to 16, which futex-raw
// needs; internal/stress runs the RwLock at 1, 2 and 8).
func TestRwLockHammer(t *testing.T) {
	participant(t)
	var m RwLock
	m.Lock()
	if m.TryLock() || m.TryRLock() {
		t.Fatal("TryLock/TryRLock succeeded with the lock write-locked")
	}
	m.Unlock()
	if !m.TryLock() {
		t.Fatal("TryLock failed with the lock unlocked")
	}
	m.Unlock()
	if !m.TryRLock() {
		t.Fatal("TryRLock failed with the lock unlocked")
	}
	if !m.TryRLock() {
		t.Fatal("TryRLock failed with the lock read-locked")
	}
	if m.TryLock() {
		t.Fatal("TryLock succeeded with the lock read-locked")
	}
	m.RUnlock()
	m.RUnlock()
	n := scale(1000, 100)
	for _, b := range testBackends() {
		t.Run(b.Name, func(t *testing.T) {
			participant(t)
			withBackend(t, b, func(t *testing.T) {
				hammerRwLock(t, goThread, 1, n)
				hammerRwLock(t, goThread, 3, n)
				hammerRwLock(t, goThread, 10, n)
			})
		})
	}
}

// Go's TestRLocker.
func TestRwLockRLocker(t *testing.T) {
	participant(t)
	var wl RwLock
	rl := wl.RLocker()
	wlocked := make(chan bool, 1)
	rlocked := make(chan bool, 1)
	const n = 10
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		for i := 0; i < n; i++ {
			rl.Lock()
			rl.Lock()
			rlocked <- true
			wl.Lock()
			wlocked <- true
		}
	})
	for i := 0; i < n; i++ {
		<-rlocked
		rl.Unlock()
		select {
		case <-wlocked:
			t.Fatal("RLocker() didn't read-lock it")
		default:
		}
		rl.Unlock()
		<-wlocked
		select {
		case <-rlocked:
			t.Fatal("RLocker() didn't respect the write lock")
		default:
		}
		wl.Unlock()
	}
	waitTimeout(t, &wg, "RLocker")
	rwQuiet(t, &wl)
}

// Go's misuse cases (sync's TestMutexMisuse: RWMutex.Unlock, .Unlock2,
// .RUnlock, .RUnlock2, .RUnlock3), which are fatal errors in Go and
// recoverable panics here, leaving the lock as it was.
func TestRwLockGoMisuse(t *testing.T) {
	participant(t)
	cases := map[string]func(l *RwLock){
		"Unlock":   func(l *RwLock) { l.Unlock() },
		"Unlock2":  func(l *RwLock) { l.RLock(); l.Unlock() },
		"Unlock3":  func(l *RwLock) { l.Lock(); l.Unlock(); l.Unlock() },
		"RUnlock":  func(l *RwLock) { l.RUnlock() },
		"RUnlock2": func(l *RwLock) { l.Lock(); l.RUnlock() },
		"RUnlock3": func(l *RwLock) { l.RLock(); l.RUnlock(); l.RUnlock() },
	}
	for name, f := range cases {
		var l RwLock
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f(&l)
		}()
		// Undo what the case legitimately holds, then check it works.
		switch name {
		case "Unlock2":
			l.RUnlock()
		case "RUnlock2":
			l.Unlock()
		}
		l.Lock()
		l.Unlock()
		rwQuiet(t, &l)
	}
}
