package lock

import (
	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/futexsync"
	"github.com/parkbench/parkbench/internal/osthread"
)

// The priority-inheriting locks (issue: inversion). Here nothing inverts
// (every thread has the same priority), so their figures beside the others
// are the price of PI alone: the uncontended fast path is the same one CAS
// as std-futex's (0 -> TID instead of 0 -> 1), but every contended lock and
// unlock enters the kernel (FUTEX_LOCK_PI has no spinning in user space,
// and the kernel hands the lock to the top waiter: no barging), which
// google/perfetto PR #1648 measured at 27x (PI futex) and 189x (PI pthread)
// fewer contended iterations than std::mutex on Android/arm64.
func piImpls() []impl {
	return []impl{
		goImpl[futexsync.PIMutex]("pi-futex", KindGo, "a PI mutex on FUTEX_LOCK_PI/FUTEX_UNLOCK_PI (internal/futexsync): CAS 0 -> TID, the kernel only on contention", nil, nil),
		goImpl[pthreadPILock]("pthread-pi", KindCgo, "glibc pthread_mutex_t with PTHREAD_PRIO_INHERIT through cgo (two crossings per acquisition)", pthreadPIInit, pthreadPIFree),
		cImpl("c-pthread-pi", cref.LockPthreadPI, "the whole loop in C threads on a PTHREAD_PRIO_INHERIT pthread_mutex_t (the PI floor)"),
	}
}

// piWhy says why a PI implementation does not run here ("" when it does,
// or name is not one of them).
func piWhy(name string) string {
	switch name {
	case "pi-futex":
		if !futexsync.Supported {
			return "FUTEX_LOCK_PI is Linux only"
		}
	case "pthread-pi", "c-pthread-pi":
		if err := cref.LockAvailable(); err != nil {
			return err.Error()
		}
	}
	return ""
}

// pthreadPILock is pthread-pi: cref.PthreadMutex made with
// PTHREAD_PRIO_INHERIT.
type pthreadPILock struct{ *cref.PthreadMutex }

var pthreadPIInit, pthreadPIFree = cgoLock(cref.NewPthreadPIMutex, func(m *pthreadPILock) **cref.PthreadMutex { return &m.PthreadMutex })

// pi-futex's owner is named by its kernel TID: the loop reads its
// thread's TID once and passes it to LockTID, as glibc reads its cached
// copy, instead of a gettid system call per acquisition (about 200 ns on
// the 2-vCPU KVM guest this was written on, ten times the lock). The check
// is a concrete type assertion (one compare; an interface assertion cost
// about 10 ns per acquisition here), made only when threadTID said yes, so
// the other locks' loops pay one predictable branch.
func acquire[M any, PM interface {
	*M
	locker
}](m PM, byTID bool, tid uint32) {
	if byTID {
		any(m).(*futexsync.PIMutex).LockTID(tid)
		return
	}
	m.Lock()
}

// threadTID says whether M is pi-futex's lock and, if so, the calling
// thread's TID (the caller is locked to its OS thread for the loop's life).
func threadTID[M any, PM interface {
	*M
	locker
}]() (bool, uint32) {
	if _, ok := any(PM(new(M))).(*futexsync.PIMutex); ok {
		return true, uint32(osthread.Tid())
	}
	return false, 0
}
