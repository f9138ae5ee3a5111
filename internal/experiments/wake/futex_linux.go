package wake

import (
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/futex"
)

// scope is perf's -S: shared futexes, or private ones (its default).
type scopeT = futex.Scope

func scope(shared bool) scopeT {
	if shared {
		return futex.Shared
	}
	return futex.Private
}

// waitWord is perf's waiter: FUTEX_WAIT while the word is val, through the
// scheduler-aware Syscall6 as every blocking wait here; it reports whether
// a signal interrupted it (perf's workerfn then waits again).
func waitWord(w *atomic.Int32, val int32, s futex.Scope) (interrupted bool) {
	return futex.WaitScope(w, val, s) == unix.EINTR
}

// wakeWord is one FUTEX_WAKE of up to n (the waker's call, RawSyscall6).
func wakeWord(w *atomic.Int32, n int, s futex.Scope) int {
	r, e := futex.WakeN(w, int32(n), s)
	if e != 0 {
		return 0
	}
	return r
}

// requeueWord is perf's futex_cmp_requeue(&futex1, 0, &futex2, 0, n): up
// to n sleepers moved from one word to the other, none woken.
func requeueWord(from, to *atomic.Int32, n int, s futex.Scope) int {
	r, e := futex.RequeueN(from, 0, int32(n), to, 0, s)
	if e != 0 {
		return 0
	}
	return r
}

// waitFails is perf's hash operation (futex-hash.c:92): FUTEX_WAIT for
// 1234 on a word that holds 0, refused at once with EAGAIN; it reports
// whether the kernel refused.
func waitFails(w *atomic.Int32, s futex.Scope) bool {
	return futex.WaitFails(w, 1234, s) == unix.EAGAIN
}
