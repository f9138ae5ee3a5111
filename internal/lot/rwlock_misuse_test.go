//lint:file-ignore SA2001 empty lock/unlock pairs exercise the lock itself

package lot

import (
	"runtime"
	"sync"
	"testing"
)

// Misuses of an RwLock that its state word shows are refused before the
// state changes (rwlock.go, heldExclusive, heldShared, heldUpgradable):
// each panics, the panic is recovered, and the lock still works, a writer
// that was waiting at the time of the misuse included.

// rwMisuse is one misuse: the test's own thread takes hold, the waiters
// queue behind it, then misuse must panic with want.
type rwMisuse struct {
	// hold is what the misusing thread holds: "read", "upgradable" or
	// "write".
	hold string
	// waiters queue on the lock before the misuse: "Lock" (a writer),
	// "Upgrade" (an upgradable reader upgrading), "RLock" (a reader).
	waiters []string
	// what is the misusing call, by name (rwMisuseCall).
	what string
	want string
}

// rwMisuseCall is each misusing call by name.
var rwMisuseCall = map[string]func(l *RwLock){
	"Unlock":                func(l *RwLock) { l.Unlock() },
	"UnlockFair":            func(l *RwLock) { l.UnlockFair() },
	"BumpExclusive":         func(l *RwLock) { l.BumpExclusive() },
	"Downgrade":             func(l *RwLock) { l.Downgrade() },
	"DowngradeToUpgradable": func(l *RwLock) { l.DowngradeToUpgradable() },
	"RUnlock":               func(l *RwLock) { l.RUnlock() },
	"RUnlockFair":           func(l *RwLock) { l.RUnlockFair() },
	"BumpShared":            func(l *RwLock) { l.BumpShared() },
	"UnlockUpgradable":      func(l *RwLock) { l.UnlockUpgradable() },
	"UnlockUpgradableFair":  func(l *RwLock) { l.UnlockUpgradableFair() },
	"BumpUpgradable":        func(l *RwLock) { l.BumpUpgradable() },
	"Upgrade":               func(l *RwLock) { l.Upgrade() },
	"TryUpgrade":            func(l *RwLock) { l.TryUpgrade() },
	"DowngradeUpgradable":   func(l *RwLock) { l.DowngradeUpgradable() },
}

// rwMisuses lists the misuses. Those marked "new" went through before the
// checks of heldExclusive / heldShared / heldUpgradable and left the lock
// broken (or, for BumpShared and BumpUpgradable without PARKED, did
// nothing); the others were refused already and are kept to show the
// checks did not loosen.
func rwMisuses() []rwMisuse {
	excl := func(what string) string { return "lot: " + what + rwExclusiveReadersMsg }
	shrd := func(what string) string { return "lot: " + what + rwRUnlockUpgradableMsg }
	upg := func(what string) string { return "lot: " + what + " of RwLock not locked upgradable" }
	var cases []rwMisuse
	// new: an exclusive unlock by a reader while a writer waits for the
	// readers, in Lock or in Upgrade.
	for _, w := range []string{"Lock", "Upgrade"} {
		for _, what := range []string{"Unlock", "UnlockFair", "Downgrade", "DowngradeToUpgradable"} {
			cases = append(cases, rwMisuse{"read", []string{w}, what, excl(what)})
		}
		// BumpExclusive acts only with PARKED set: a reader queued behind
		// the waiting writer sets it.
		cases = append(cases, rwMisuse{"read", []string{w, "RLock"}, "BumpExclusive", excl("BumpExclusive")})
	}
	// new: a read unlock by the upgradable holder as the only reader,
	// alone or with a writer queued behind it.
	for _, ws := range [][]string{nil, {"Lock"}} {
		cases = append(cases,
			rwMisuse{"upgradable", ws, "RUnlock", shrd("RUnlock")},
			rwMisuse{"upgradable", ws, "RUnlockFair", shrd("RUnlock")}, // RUnlockFair is RUnlock
			rwMisuse{"upgradable", ws, "BumpShared", shrd("BumpShared")})
	}
	// new: BumpUpgradable without an upgradable holder (it went straight
	// to unlock_upgradable_slow with PARKED set, as here behind a writer;
	// without PARKED it did nothing, as behind a reader below).
	cases = append(cases, rwMisuse{"write", []string{"Lock"}, "BumpUpgradable", upg("BumpUpgradable")},
		rwMisuse{"read", []string{"Lock"}, "BumpUpgradable", upg("BumpUpgradable")})
	// refused already: upgradable operations without an upgradable holder
	// (UnlockUpgradableFair's text named UnlockUpgradable), a read unlock
	// by the writer, exclusive ones by the upgradable holder.
	for _, what := range []string{"UnlockUpgradable", "UnlockUpgradableFair", "Upgrade", "TryUpgrade", "DowngradeUpgradable"} {
		cases = append(cases, rwMisuse{"read", []string{"Lock"}, what, upg(what)})
	}
	cases = append(cases,
		rwMisuse{"write", []string{"Lock"}, "RUnlock", rwRUnlockUnlockedMsg},
		rwMisuse{"upgradable", []string{"Lock"}, "Unlock", rwUnlockUnlockedMsg},
		rwMisuse{"upgradable", []string{"Lock"}, "Downgrade", "lot: Downgrade of RwLock not locked exclusively"},
	)
	return cases
}

// rwAcquire and rwRelease take and give back a hold of the given kind.
func rwAcquire(l *RwLock, hold string) {
	switch hold {
	case "read":
		l.RLock()
	case "upgradable":
		l.LockUpgradable()
	default:
		l.Lock()
	}
}

func rwRelease(l *RwLock, hold string) {
	switch hold {
	case "read":
		l.RUnlock()
	case "upgradable":
		l.UnlockUpgradable()
	default:
		l.Unlock()
	}
}

// rwStartWaiters starts each waiter on its own thread and returns once
// every one is parked where it waits; each sends its name on got when it
// holds the lock. A writer waits on the writer queue if only readers hold
// the lock (it has WRITER_BIT and waits for them), else on the main queue;
// an upgrade waits on the writer queue.
func rwStartWaiters(t *testing.T, l *RwLock, hold string, waiters []string, wg *sync.WaitGroup, got chan<- string) {
	t.Helper()
	wantMain, wantWriter := 0, 0
	for _, w := range waiters {
		switch w {
		case "Lock":
			goThread(t, wg, func() { l.Lock(); got <- w; l.Unlock() })
			if hold == "read" {
				wantWriter++
			} else {
				wantMain++
			}
		case "Upgrade":
			goThread(t, wg, func() { l.LockUpgradable(); l.Upgrade(); got <- w; l.Unlock() })
			wantWriter++
		case "RLock":
			goThread(t, wg, func() { l.RLock(); got <- w; l.RUnlock() })
			wantMain++
		}
		until(t, w+" waiting", func() bool {
			return numParked(l.mainKey()) == wantMain && numParked(l.writerQKey()) == wantWriter
		})
	}
}

// rwStillWorks checks l after a recovered misuse, l unlocked: every mode
// can be taken and released, a writer parked behind a reader is handed the
// lock, and nothing is left parked.
func rwStillWorks(t *testing.T, l *RwLock) {
	t.Helper()
	rwQuiet(t, l)
	l.Lock()
	l.Downgrade()
	l.RUnlock()
	l.LockUpgradable()
	l.Upgrade()
	l.DowngradeToUpgradable()
	l.UnlockUpgradable()
	l.RLock()
	var wg sync.WaitGroup
	got := make(chan string, 1)
	rwStartWaiters(t, l, "read", []string{"Lock"}, &wg, got)
	l.RUnlock()
	waitTimeout(t, &wg, "a writer queued after the misuse")
	<-got
	rwQuiet(t, l)
}

// TestRwLockMisuseRefused runs every misuse of rwMisuses: it panics with
// its text, the state word is unchanged, and once the misusing thread
// releases what it legitimately holds, every waiter gets the lock and the
// lock still works. The "new" cases fail without the checks (no panic,
// and the waiters hang or the state is wrong afterwards).
func TestRwLockMisuseRefused(t *testing.T) {
	participant(t)
	for _, tc := range rwMisuses() {
		name := tc.hold + "/" + tc.what
		for _, w := range tc.waiters {
			name += "/" + w
		}
		t.Run(name, func(t *testing.T) {
			participant(t)
			var l RwLock
			var wg sync.WaitGroup
			got := make(chan string, len(tc.waiters))
			rwAcquire(&l, tc.hold)
			rwStartWaiters(t, &l, tc.hold, tc.waiters, &wg, got)
			before := l.state.Load()
			r := mustPanic(t, tc.what, func() { rwMisuseCall[tc.what](&l) })
			if panicText(r) != tc.want {
				t.Errorf("panic %q, want %q", panicText(r), tc.want)
			}
			if s := l.state.Load(); s != before {
				t.Errorf("the refused %s changed the state %#x -> %#x", tc.what, before, s)
			}
			rwRelease(&l, tc.hold)
			waitTimeout(t, &wg, "the waiters queued before the misuse")
			for range tc.waiters {
				<-got
			}
			rwStillWorks(t, &l)
		})
	}
}

// TestRwLockMisuseReaderUnlockRepro is the first repro of the misuse
// report: a reader calls Unlock while a writer is pending. It used to go
// through (IsLocked false afterwards), the reader's own RUnlock then
// panicked "RUnlock of unlocked RwLock" and the writer stayed parked for
// good. Now the Unlock panics, the RUnlock succeeds and the writer gets
// the lock.
func TestRwLockMisuseReaderUnlockRepro(t *testing.T) {
	participant(t)
	var l RwLock
	l.RLock()
	done := make(chan struct{})
	go func() { runtime.LockOSThread(); l.Lock(); l.Unlock(); close(done) }()
	until(t, "the writer pending", l.IsLockedExclusive)
	r := mustPanic(t, "Unlock by a reader with a writer pending", l.Unlock)
	if want := "lot: Unlock" + rwExclusiveReadersMsg; panicText(r) != want {
		t.Errorf("panic %q, want %q", panicText(r), want)
	}
	if !l.IsLocked() {
		t.Fatal("the refused Unlock released the lock")
	}
	l.RUnlock()
	recvTimeout(t, done, "the writer pending at the misuse")
	rwStillWorks(t, &l)
}

// TestRwLockMisuseUpgradableRUnlockRepro is the second repro: the
// upgradable holder calls RUnlock. It used to go through, the
// UnlockUpgradable after it wrapped the reader count to 2^60-1, and the
// lock was dead (TryLock false for ever, TryRLock panicking on overflow).
func TestRwLockMisuseUpgradableRUnlockRepro(t *testing.T) {
	participant(t)
	var m RwLock
	m.LockUpgradable()
	r := mustPanic(t, "RUnlock by the upgradable holder", m.RUnlock)
	if want := "lot: RUnlock" + rwRUnlockUpgradableMsg; panicText(r) != want {
		t.Errorf("panic %q, want %q", panicText(r), want)
	}
	m.UnlockUpgradable()
	if !m.TryLock() {
		t.Fatalf("TryLock failed after the refused misuse (state %#x)", m.state.Load())
	}
	m.Unlock()
	if !m.TryRLock() {
		t.Fatal("TryRLock failed after the refused misuse")
	}
	m.RUnlock()
	rwStillWorks(t, &m)
}

// TestRwLockUpgradableHolderRUnlockUnseen documents the misuse lot cannot
// see: the upgradable holder's RUnlock while a plain reader also holds the
// lock looks like that reader's, so it goes through; the reader's own
// RUnlock is then refused (it now looks like the upgradable holder's), and
// the lock is still usable once the upgradable holder leaves.
func TestRwLockUpgradableHolderRUnlockUnseen(t *testing.T) {
	participant(t)
	var l RwLock
	l.RLock()          // the plain reader
	l.LockUpgradable() // the upgradable holder
	l.RUnlock()        // by the upgradable holder: not seen
	r := mustPanic(t, "the plain reader's RUnlock", l.RUnlock)
	if want := "lot: RUnlock" + rwRUnlockUpgradableMsg; panicText(r) != want {
		t.Errorf("panic %q, want %q", panicText(r), want)
	}
	l.UnlockUpgradable()
	rwStillWorks(t, &l)
}
