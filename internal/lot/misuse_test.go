package lot

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// mustPanic runs f and returns its panic value, failing the test if f
// returns normally.
func mustPanic(t *testing.T, what string, f func()) (r any) {
	t.Helper()
	func() {
		defer func() { r = recover() }()
		f()
	}()
	if r == nil {
		t.Fatalf("%s did not panic", what)
	}
	return r
}

// panicText is the text of a recovered panic value.
func panicText(r any) string {
	switch v := r.(type) {
	case string:
		return v
	case error:
		return v.Error()
	}
	return ""
}

// condvarStillWorks checks that c and m work after a misuse: a thread that
// waits afterwards is woken by a notify, and m can be locked and unlocked.
func condvarStillWorks(t *testing.T, c *Condvar, m *Mutex) {
	t.Helper()
	var wg sync.WaitGroup
	queued := make(chan struct{})
	woken := false
	goThread(t, &wg, func() {
		m.Lock()
		close(queued)
		for !woken {
			c.Wait(m)
		}
		m.Unlock()
	})
	<-queued
	until(t, "the waiter parked on the condvar", func() bool { return numParked(ptrOf(c)) >= 1 })
	m.Lock()
	woken = true
	if !c.NotifyOne() {
		t.Error("NotifyOne found no waiter")
	}
	m.Unlock()
	waitTimeout(t, &wg, "a waiter queued after the misuse")
	if !m.TryLock() {
		t.Fatal("the mutex stayed locked after the misuse")
	}
	m.Unlock()
	if n := numParked(ptrOf(c)) + numParked(ptrOf(m)); n != 0 {
		t.Fatalf("%d threads still queued on the condvar or the mutex", n)
	}
}

// TestCondvarWaitUnlockedMutex: Wait with a Mutex the
// caller does not hold panics, and the recovered panic leaves both
// primitives working (the misuse is refused before the thread is queued).
func TestCondvarWaitUnlockedMutex(t *testing.T) {
	participant(t)
	var m Mutex
	var c Condvar
	r := mustPanic(t, "Wait with an unlocked mutex", func() { c.Wait(&m) })
	if panicText(r) != unlockedMutexMsg {
		t.Errorf("panic %v, want %q", r, unlockedMutexMsg)
	}
	condvarStillWorks(t, &c, &m)
	r = mustPanic(t, "WaitFor with an unlocked mutex", func() { c.WaitFor(&m, time.Hour) })
	if panicText(r) != unlockedMutexMsg {
		t.Errorf("panic %v, want %q", r, unlockedMutexMsg)
	}
	condvarStillWorks(t, &c, &m)
}

// TestCondvarTwoMutexesStillWorks: after the two-mutex panic, and once the
// first waiter has gone, the condvar works with either mutex.
func TestCondvarTwoMutexesStillWorks(t *testing.T) {
	participant(t)
	var m, m2 Mutex
	var c Condvar
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		m.Lock()
		c.Wait(&m)
		m.Unlock()
	})
	until(t, "the first waiter parked", func() bool { return numParked(ptrOf(&c)) == 1 })
	m2.Lock()
	r := mustPanic(t, "Wait with a second mutex", func() { c.Wait(&m2) })
	if panicText(r) != badMutexMsg {
		t.Errorf("panic %v", r)
	}
	m2.Unlock()
	c.NotifyAll()
	waitTimeout(t, &wg, "the first waiter")
	condvarStillWorks(t, &c, &m2)
	condvarStillWorks(t, &c, &m)
}

// mutexStillWorks checks that m works after a misuse: a thread that parks
// on it is handed the lock, and m ends unlocked with nobody queued.
func mutexStillWorks(t *testing.T, m *Mutex) {
	t.Helper()
	m.Lock()
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		m.Lock()
		//lint:ignore SA2001 the locker only has to be handed the mutex and leave
		m.Unlock()
	})
	until(t, "a locker parked on the mutex", func() bool { return numParked(ptrOf(m)) == 1 })
	m.Unlock()
	waitTimeout(t, &wg, "a locker parked after the misuse")
	if s := m.state.Load(); s != 0 || numParked(ptrOf(m)) != 0 {
		t.Fatalf("mutex state %#x, %d queued, after the misuse", s, numParked(ptrOf(m)))
	}
}

// TestWaitGroupMisuseStillWorks: a handle used twice panics before the
// count changes, so the group still waits for its other handles.
func TestWaitGroupMisuseStillWorks(t *testing.T) {
	participant(t)
	wg := NewWaitGroup()
	c := wg.Clone()
	c.Done()
	for what, f := range map[string]func(){"Done": c.Done, "Wait": c.Wait, "Clone": func() { c.Clone() }} {
		r := mustPanic(t, "second "+what, f)
		if !strings.Contains(panicText(r), "already released") {
			t.Errorf("second %s: panic %v", what, r)
		}
	}
	if n := wg.Count(); n != 1 {
		t.Fatalf("count %d after the misuses, want 1", n)
	}
	var join sync.WaitGroup
	last := wg.Clone()
	var done bool
	goThread(t, &join, func() {
		until(t, "Wait parked", func() bool { return numParked(ptrOf(&wg.inner.cvar)) == 1 })
		done = true
		last.Done()
	})
	wg.Wait()
	if !done {
		t.Fatal("Wait returned before the last handle was released")
	}
	waitTimeout(t, &join, "the last handle")
}

// errCallback is what the misbehaving callbacks panic with.
var errCallback = fmt.Errorf("callback panicked on purpose")

// threadDataInUse is how many ThreadData are out of their pools: at rest,
// with nobody parked, the same before and after a misuse.
func threadDataInUse() int {
	free := 0
	poolsMu.Lock()
	for _, p := range pools {
		for id := uint32(p.threads.head.Load()); id != 0; id = threadSlab.at(id).freeNext.Load() {
			free++
		}
	}
	poolsMu.Unlock()
	return int(numThreads.Load()) - free
}

// bucketFree fails the test if the bucket of key stays locked.
func bucketFree(t *testing.T, key unsafe.Pointer) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		lockBucket(key).mutex.unlock()
	}()
	waitTimeout(t, &wg, "locking the bucket (left locked by the panic?)")
}

// lotStillWorks checks the lot after a callback panicked: the buckets of
// keys are unlocked, no ThreadData is lost, and parked threads with tokens
// want (in order) are on keys[0]; they are then unparked, and one more
// thread parked on each key is woken.
func lotStillWorks(t *testing.T, inUse int, want string, parked *sync.WaitGroup, keys ...unsafe.Pointer) {
	t.Helper()
	for _, k := range keys {
		bucketFree(t, k)
	}
	if got := fmt.Sprint(tokensOn(keys[0])); got != want {
		t.Errorf("parked on the key: %s, want %s", got, want)
	}
	for _, k := range keys {
		UnparkAll(k, DefaultUnparkToken)
	}
	waitTimeout(t, parked, "the threads parked before the panic")
	if n := threadDataInUse(); n != inUse {
		t.Errorf("%d ThreadData out of their pools, want %d: lost by the panic", n, inUse)
	}
	for _, k := range keys {
		var wg sync.WaitGroup
		res := make([]ParkResult, 1)
		parkN(t, &wg, k, 1, res)
		if r := UnparkOne(k, func(UnparkResult) UnparkToken { return 7 }); r.UnparkedThreads != 1 {
			t.Errorf("UnparkOne after the panic = %+v", r)
		}
		waitTimeout(t, &wg, "a thread parked after the panic")
		if res[0] != Unparked(7) {
			t.Errorf("thread parked after the panic: %+v", res[0])
		}
	}
	if n := numParkedTotal(keys...); n != 0 {
		t.Errorf("%d threads still queued", n)
	}
}

type callbackCase struct {
	name string
	// parked threads (tokens 0..parked-1) are queued on key before run.
	parked int
	// run misbehaves on key (and to); it must panic with errCallback.
	run func(t *testing.T, key, to unsafe.Pointer)
	// want is the tokens left parked on key after the panic.
	want string
}

// TestCallbackPanics makes every callback of Park and the unpark
// operations panic in turn, recovers, and checks that the lot is intact:
// buckets unlocked, no ThreadData lost, nothing left queued that should
// not be, queue order kept, and later parks and unparks working.
func TestCallbackPanics(t *testing.T) {
	participant(t)
	boom := func() { panic(errCallback) }
	cases := []callbackCase{
		{"Park/validate", 2, func(t *testing.T, key, _ unsafe.Pointer) {
			Park(key, func() bool { boom(); return true }, nil, nil, 9, time.Time{})
		}, "[0 1]"},
		{"Park/beforeSleep", 2, func(t *testing.T, key, _ unsafe.Pointer) {
			var gotKey unsafe.Pointer
			wasLast := true
			defer func() {
				if gotKey != key || wasLast {
					t.Errorf("timedOut(%p, %v), want (%p, false)", gotKey, wasLast, key)
				}
			}()
			Park(key, nil, boom, func(k unsafe.Pointer, last bool) { gotKey, wasLast = k, last }, 9, time.Time{})
		}, "[0 1]"},
		{"Park/beforeSleep-after-unpark", 2, func(t *testing.T, key, _ unsafe.Pointer) {
			var self int
			k := unsafe.Pointer(&self)
			// beforeSleep may unpark: it unparks this very thread, then
			// panics; Park must wait for that wake, and drop it.
			Park(k, nil, func() {
				if r := UnparkOne(k, nil); r.UnparkedThreads != 1 {
					t.Errorf("UnparkOne of self = %+v", r)
				}
				boom()
			}, func(unsafe.Pointer, bool) { t.Error("timedOut called for an unparked thread") }, 9, time.Time{})
		}, "[0 1]"},
		{"Park/timedOut", 2, func(t *testing.T, key, _ unsafe.Pointer) {
			Park(key, nil, nil, func(unsafe.Pointer, bool) { boom() }, 9, time.Now().Add(time.Millisecond))
		}, "[0 1]"},
		{"UnparkOne/callback", 2, func(t *testing.T, key, _ unsafe.Pointer) {
			UnparkOne(key, func(UnparkResult) UnparkToken { boom(); return 0 })
		}, "[0 1]"},
		{"UnparkOne/callback-nobody", 0, func(t *testing.T, key, _ unsafe.Pointer) {
			UnparkOne(key, func(UnparkResult) UnparkToken { boom(); return 0 })
		}, "[]"},
		{"UnparkRequeue/validate", 3, func(t *testing.T, key, to unsafe.Pointer) {
			UnparkRequeue(key, to, func() RequeueOp { boom(); return RequeueOpAbort }, nil)
		}, "[0 1 2]"},
		{"UnparkFilter/filter", 3, func(t *testing.T, key, _ unsafe.Pointer) {
			n := 0
			UnparkFilter(key, func(ParkToken) FilterOp {
				if n++; n == 2 {
					boom()
				}
				return FilterOpUnpark
			}, nil)
		}, "[0 1 2]"},
		{"UnparkFilter/callback", 3, func(t *testing.T, key, _ unsafe.Pointer) {
			UnparkFilter(key, func(ParkToken) FilterOp { return FilterOpUnpark },
				func(UnparkResult) UnparkToken { boom(); return 0 })
		}, "[0 1 2]"},
	}
	// UnparkRequeue's callback, after each op has taken its threads out,
	// onto another key and onto the same one (one bucket for both).
	for _, op := range []RequeueOp{RequeueOpUnparkOneRequeueRest, RequeueOpRequeueAll, RequeueOpUnparkOne, RequeueOpRequeueOne} {
		for _, same := range []bool{false, true} {
			op, same := op, same
			cases = append(cases, callbackCase{fmt.Sprintf("UnparkRequeue/callback/%v/same-key=%v", op, same), 3,
				func(t *testing.T, key, to unsafe.Pointer) {
					if same {
						to = key
					}
					UnparkRequeue(key, to, func() RequeueOp { return op },
						func(RequeueOp, UnparkResult) UnparkToken { boom(); return 0 })
				}, "[0 1 2]"})
		}
	}
	for _, b := range testBackends() {
		t.Run(b.Name, func(t *testing.T) {
			withBackend(t, b, func(t *testing.T) {
				for _, tc := range cases {
					runCallbackCase(t, tc)
				}
			})
		})
	}
}

// runCallbackCase runs one case of TestCallbackPanics.
func runCallbackCase(t *testing.T, tc callbackCase) {
	t.Run(tc.name, func(t *testing.T) {
		var key, other [2]int
		k, to := unsafe.Pointer(&key), unsafe.Pointer(&other)
		inUse := threadDataInUse()
		var parked sync.WaitGroup
		res := make([]ParkResult, tc.parked)
		parkN(t, &parked, k, tc.parked, res)
		r := mustPanic(t, tc.name, func() { tc.run(t, k, to) })
		if r != errCallback {
			t.Fatalf("panic %v, want %v", r, errCallback)
		}
		lotStillWorks(t, inUse, tc.want, &parked, k, to)
		for i, r := range res {
			if r != Unparked(DefaultUnparkToken) {
				t.Errorf("thread %d parked before the panic: %+v, want Unparked(0)", i, r)
			}
		}
	})
}

// TestParkFatalMisuse: a beforeSleep that panics after an unpark handed
// its thread a token other than the default loses that token (which may
// hand over a lock), so Park ends the process, as sync's fatal errors do:
// no recover runs. Checked in a child process (sync's TestMutexMisuse
// pattern): this test binary, re-run with LOT_TEST_FATAL set.
func TestParkFatalMisuse(t *testing.T) {
	if os.Getenv("LOT_TEST_FATAL") == "1" {
		var key int
		k := unsafe.Pointer(&key)
		defer func() {
			fmt.Println("recovered:", recover())
			os.Exit(0)
		}()
		Park(k, nil, func() {
			UnparkOne(k, func(UnparkResult) UnparkToken { return tokenHandoff })
			panic(errCallback)
		}, nil, DefaultParkToken, time.Time{})
		return
	}
	if runtime.GOOS == "wasip1" || runtime.GOOS == "js" {
		t.Skip("no child processes on wasm")
	}
	participant(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestParkFatalMisuse$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LOT_TEST_FATAL=1")
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.ENOEXEC) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, errors.ErrUnsupported) {
		// qemu-user without binfmt_misc cannot start a foreign
		// binary as a child (exec format error); wasm has no exec.
		t.Skipf("cannot re-run this test binary as a child here: %v", err)
	}
	want := "fatal error: lot: Park's beforeSleep panicked after the thread was unparked with a token"
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), want) {
		t.Fatalf("child: %v, want exit status 2 and %q; output:\n%s", err, want, out)
	}
	if strings.Contains(string(out), "recovered:") {
		t.Fatalf("the fatal error was recovered:\n%s", out)
	}
}
