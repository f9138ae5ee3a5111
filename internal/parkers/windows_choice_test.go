package parkers

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// Fakes of the Windows APIs, so the Windows state machines and the backend
// selection are tested on any OS.

// fakeWaitAddress models WaitOnAddress: return at once if the word differs
// from *compare, else sleep until a WakeByAddressSingle (a pending wake is
// remembered, which at worst is a spurious wakeup, which WaitOnAddress is
// allowed to have) or the timeout.
type fakeWaitAddress struct {
	wake  chan struct{}
	timer *time.Timer
	waits atomic.Int64
}

func newFakeWaitAddress() *fakeWaitAddress {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &fakeWaitAddress{wake: make(chan struct{}, 1), timer: t}
}

func (f *fakeWaitAddress) WaitOnAddress(addr, compare unsafe.Pointer, size uintptr, ms uint32) bool {
	switch size {
	case unsafe.Sizeof(uintptr(0)): // parking_lot's usize key
		if (*atomic.Uintptr)(addr).Load() != *(*uintptr)(compare) {
			return true
		}
	case 1: // std's i8 state: the low byte of an int32 (little-endian)
		if uint8((*atomic.Int32)(addr).Load()) != *(*uint8)(compare) {
			return true
		}
	default:
		panic("WaitOnAddress: unexpected size")
	}
	f.waits.Add(1)
	if ms == winInfinite {
		<-f.wake
		return true
	}
	f.timer.Reset(time.Duration(ms) * time.Millisecond)
	defer f.timer.Stop()
	select {
	case <-f.wake:
		return true
	case <-f.timer.C:
		return false
	}
}

func (f *fakeWaitAddress) WakeByAddressSingle(unsafe.Pointer) {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// fakeKeyedEvent models a keyed event on one key: an unbuffered channel is
// exactly the rendezvous (Release blocks until a Wait takes it). The
// onTimedWait hook, if set, replaces one timed wait: it runs, and the wait
// reports STATUS_TIMEOUT.
type fakeKeyedEvent struct {
	ch          chan struct{}
	onTimedWait func()
	waits       atomic.Int64
	releases    atomic.Int64
}

func newFakeKeyedEvent() *fakeKeyedEvent { return &fakeKeyedEvent{ch: make(chan struct{})} }

func (f *fakeKeyedEvent) Wait(key unsafe.Pointer, timeout *int64) uint32 {
	if uintptr(key)&1 != 0 {
		panic("keyed event keys must be even")
	}
	if timeout == nil {
		<-f.ch
		f.waits.Add(1)
		return statusSuccess
	}
	if *timeout >= 0 {
		panic("expected a relative (negative) NT timeout")
	}
	if h := f.onTimedWait; h != nil {
		f.onTimedWait = nil
		h()
		return statusTimeout
	}
	tm := time.NewTimer(time.Duration(-*timeout) * 100)
	defer tm.Stop()
	select {
	case <-f.ch:
		f.waits.Add(1)
		return statusSuccess
	case <-tm.C:
		return statusTimeout
	}
}

func (f *fakeKeyedEvent) Release(unsafe.Pointer) uint32 {
	f.ch <- struct{}{}
	f.releases.Add(1)
	return statusSuccess
}

type fakeLoader struct {
	// mu guards keyed and waitAddr: upstream lets several threads race to
	// make the first choice (the first published one wins), so the loader
	// is called concurrently.
	mu       sync.Mutex
	wa, ke   bool
	waCalls  atomic.Int64
	keCalls  atomic.Int64
	keyed    *fakeKeyedEvent
	waitAddr *fakeWaitAddress
}

func (l *fakeLoader) WaitAddress() (waitAddressAPI, error) {
	l.waCalls.Add(1)
	if !l.wa {
		return nil, errors.New("WaitOnAddress is a Windows 8+ API: not found")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waitAddr = newFakeWaitAddress()
	return l.waitAddr, nil
}

func (l *fakeLoader) KeyedEvent() (keyedEventAPI, error) {
	l.keCalls.Add(1)
	if !l.ke {
		return nil, errors.New("NT keyed events: not found")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keyed = newFakeKeyedEvent()
	return l.keyed, nil
}

func TestWindowsSelectionOrder(t *testing.T) {
	for _, tc := range []struct {
		wa, ke bool
		want   string
	}{
		{true, true, NameWaitOnAddress},
		{true, false, NameWaitOnAddress},
		{false, true, NameKeyedEvent},
		{false, false, ""},
	} {
		l := &fakeLoader{wa: tc.wa, ke: tc.ke}
		c, err := selectWindows(l)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), winNoBackend) {
				t.Errorf("wa=%v ke=%v: err %v, want upstream's message", tc.wa, tc.ke, err)
			}
			continue
		}
		if err != nil || c.name != tc.want {
			t.Errorf("wa=%v ke=%v: chose %v (%v), want %s", tc.wa, tc.ke, c, err, tc.want)
		}
		if tc.wa && l.keCalls.Load() != 0 {
			t.Errorf("keyed events loaded although WaitOnAddress was there")
		}
	}
}

func TestWindowsSelectorChoosesOnce(t *testing.T) {
	l := &fakeLoader{wa: false, ke: true}
	s := &winSelector{loader: l}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := s.newParker().(*keyedEventParker); !ok {
				t.Error("not a keyed-event parker")
			}
		}()
	}
	wg.Wait()
	first := s.chosen.Load()
	s.newParker()
	if s.chosen.Load() != first {
		t.Error("the backend choice changed after it was made")
	}

	none := &winSelector{loader: &fakeLoader{}}
	defer func() {
		if r, _ := recover().(string); !strings.HasPrefix(r, winNoBackend) {
			t.Errorf("panic %q, want upstream's message", r)
		}
	}()
	none.newParker()
	t.Error("no panic without either API")
}

// The keyed-event rule: a thread whose wait timed out after a waker already
// marked it UNPARKED must still wait once, to take the release; otherwise
// the waker blocks in NtReleaseKeyedEvent forever.
func TestKeyedEventTimedOutButUnparkedTakesRelease(t *testing.T) {
	f := newFakeKeyedEvent()
	p := newKeyedEventParker(f)
	released := make(chan struct{})
	p.PreparePark()
	f.onTimedWait = func() {
		// Inside the (timed-out) wait, a waker marks us and starts its
		// release, which blocks until we take it.
		h := p.UnparkLock()
		if _, ok := h.(*keyedEventUnpark); !ok {
			panic("UnparkLock of a PARKED thread returned no release")
		}
		go func() { h.Unpark(); close(released) }()
	}
	var got atomic.Bool
	wait(t, onThread(func() { got.Store(p.ParkUntil(time.Now().Add(time.Hour))) }), "ParkUntil")
	if !got.Load() {
		t.Error("ParkUntil = false although the thread was unparked")
	}
	select {
	case <-released:
	case <-time.After(watchdog):
		t.Fatal("the waker is stuck in NtReleaseKeyedEvent: the timed-out thread did not take the release")
	}
	if w, r := f.waits.Load(), f.releases.Load(); w != r {
		t.Errorf("%d waits took %d releases", w, r)
	}
}

// An unpark before the owner committed to wait (ARMED) sends no release,
// and a ParkUntil whose deadline has already passed then reports the
// unpark without waiting.
func TestKeyedEventPastDeadlineButUnparked(t *testing.T) {
	f := newFakeKeyedEvent()
	p := newKeyedEventParker(f)
	p.PreparePark()
	if _, ok := p.UnparkLock().(spinUnpark); !ok {
		t.Fatal("UnparkLock before the owner committed returned a release")
	}
	if !p.ParkUntil(time.Now().Add(-time.Second)) {
		t.Error("ParkUntil(past) = false although already unparked")
	}
	if w, r := f.waits.Load(), f.releases.Load(); w != 0 || r != 0 {
		t.Errorf("%d waits, %d releases; want none", w, r)
	}
}

// selfwake's sequence: the owner unparks itself between PreparePark and
// Park. With parking_lot's protocol as written (PARKED at prepare_park) the
// release has only the caller to take it and blocks for ever; with std's
// rule (PARKED only once the owner commits) no release is sent and Park
// returns at once. Park and ParkUntil, several rounds, on one thread.
func TestKeyedEventSelfWake(t *testing.T) {
	f := newFakeKeyedEvent()
	p := newKeyedEventParker(f)
	wait(t, onThread(selfWakeRounds(p, 3)), "self-wake")
	if w, r := f.waits.Load(), f.releases.Load(); w != 0 || r != 0 {
		t.Errorf("%d waits, %d releases; want none", w, r)
	}
	if b, im := p.WaitCounts(); b != 0 || im != 6 {
		t.Errorf("WaitCounts = %d blocked, %d immediate; want 0, 6", b, im)
	}
}

// selfWakeRounds is selfwake's loop: rounds of Park and of ParkUntil, each
// after the owner unparked itself.
func selfWakeRounds(p ThreadParker, rounds int) func() {
	return func() {
		for i := 0; i < rounds; i++ {
			p.PreparePark()
			p.UnparkLock().Unpark()
			p.Park()
			p.PreparePark()
			p.UnparkLock().Unpark()
			if !p.ParkUntil(time.Now().Add(time.Hour)) {
				panic("self-woken ParkUntil reported a timeout")
			}
		}
	}
}

// A waker that comes after the owner committed (PARKED) releases, and the
// owner's wait takes that release: Park and ParkUntil.
func TestKeyedEventCommittedTakesRelease(t *testing.T) {
	f := newFakeKeyedEvent()
	p := newKeyedEventParker(f)
	for _, timed := range []bool{false, true} {
		p.PreparePark()
		done := onThread(func() {
			if timed {
				if !p.ParkUntil(time.Now().Add(time.Hour)) {
					panic("ParkUntil timed out")
				}
			} else {
				p.Park()
			}
		})
		for p.state.Load() != keParked {
			time.Sleep(time.Millisecond)
		}
		p.UnparkLock().Unpark() // blocks until the owner's wait takes it
		wait(t, done, "park")
	}
	if w, r := f.waits.Load(), f.releases.Load(); w != 2 || r != 2 {
		t.Errorf("%d waits, %d releases; want 2, 2", w, r)
	}
}

// A thread that really timed out is TIMED_OUT; a late UnparkLock must then
// not release (nobody would take it: the waker would block forever).
func TestKeyedEventLateUnparkDoesNotRelease(t *testing.T) {
	f := newFakeKeyedEvent()
	p := newKeyedEventParker(f)
	p.PreparePark()
	if p.ParkUntil(time.Now().Add(time.Millisecond)) {
		t.Fatal("ParkUntil = true with no unpark")
	}
	if !p.TimedOut() {
		t.Fatal("TimedOut = false")
	}
	h := p.UnparkLock()
	done := make(chan struct{})
	go func() { h.Unpark(); close(done) }()
	select {
	case <-done:
	case <-time.After(watchdog):
		t.Fatal("Unpark of a timed-out thread blocked in a release")
	}
	if f.releases.Load() != 0 {
		t.Error("released a timed-out thread")
	}
	if p.TimedOut() {
		t.Error("TimedOut still true after UnparkLock")
	}
}

func TestWindowsTimeoutConversions(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want uint32
	}{
		{time.Nanosecond, 1},
		{time.Millisecond, 1},
		{time.Millisecond + 1, 2},
		{1500 * time.Millisecond, 1500},
		{49 * 24 * time.Hour, 49 * 24 * 3600 * 1000},
		{50 * 24 * time.Hour, winInfinite}, // > DWORD ms
		{maxDuration, winInfinite},
	} {
		if got := waTimeoutMs(tc.d); got != tc.want {
			t.Errorf("waTimeoutMs(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{
		{1, -1},
		{100, -1},
		{101, -2},
		{time.Second + 1, -10_000_001},
		{2 * time.Second, -20_000_000},
	} {
		if got, ok := ntRelativeTimeout(tc.d); !ok || got != tc.want {
			t.Errorf("ntRelativeTimeout(%v) = %d, %v; want %d", tc.d, got, ok, tc.want)
		}
	}
}
