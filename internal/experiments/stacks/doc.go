// Package stacks is the Linux analogue of the study's park-stack
// experiment (docs/experiments.md, "stacks"): one thread is put to sleep on each
// mechanism, and for each the experiment shows where it sleeps as the
// kernel sees it (/proc/self/task/TID/{stat,wchan,syscall,stack}: state,
// wait channel, the system call with its futex op and address decoded, the
// kernel stack) and as Go sees it (the goroutine's wait reason and top
// frames from runtime.Stack). Goroutine-level mechanisms (sync.Mutex, a
// channel receive) block no thread at all; for them it shows the goroutine's
// wait reason and what the runtime's threads are doing instead.
//
// The point, as in the study: the same stack top can mean several things.
// On Linux every thread-level mechanism here sleeps in futex_wait_queue
// inside futex(2); what tells them apart is the futex op, the address, and
// the user-space stack.
//
// The files: options.go (Options, validation), impls.go (the mechanisms),
// run.go (Plan / Run), run_linux.go (the run, Linux only; run_other.go
// says why not elsewhere), dump.go (reading goroutine dumps and /proc), claims.go
// (the claims and the notes).
package stacks
