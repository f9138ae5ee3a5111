package pingpong

// The Go twins of the C reference: exactly cref.c's protocol (the flag is
// the futex word; spin reads the flag itself), with no parker in between.
// Against c-futex / c-spin they isolate what the Go runtime adds to a wake;
// against futex / spin, what the parker protocol adds (PreparePark's store
// and the parker's own word: a second cache line per wake). One mechanism
// for both, as cref.c's wait_flag and wake_word are one loop for both
// modes. They run on Linux only (TwinsAvailable).
type twin struct {
	plain
	futex bool
}

// GoFutex is go-futex's mechanism: it waits with FUTEX_WAIT_PRIVATE(flag,
// 0) through futex.Wait (unix.Syscall6: scheduler-aware, as the futex
// backend) and wakes with FUTEX_WAKE_PRIVATE.
// No wake is lost: the kernel compares the word with 0 under its bucket
// lock before sleeping, and the waker stores 1 before FUTEX_WAKE, which
// takes the same lock (see cref.c).
func GoFutex(pp *pingpong) mechanism { return &twin{plain{pp}, true} }

// GoSpin is go-spin's mechanism: it busy-waits on the flag itself, one
// cache line per wake, as c-spin.
func GoSpin(pp *pingpong) mechanism { return &twin{plain{pp}, false} }
