package machine

import (
	"errors"

	"golang.org/x/sys/unix"
)

// prctl(2) options of the process-private futex hash (linux/prctl.h, Linux
// 6.16+); x/sys/unix does not export them yet.
const (
	prFutexHash         = 78
	prFutexHashGetSlots = 2
)

// FutexHash reads which futex hash table this process's private futexes
// go through: "private" with its slot count (Linux 6.16+ gives every
// process its own table: 16 slots once the first thread exists, resized as
// threads are added), or "global" (the kernel's one table: a kernel
// without PR_FUTEX_HASH, or a process that asked for 0 slots), the reading
// of tools/perf/bench/futex.c futex_print_nbuckets. The slot count is read
// now and changes as the process creates threads, so an experiment that
// depends on it reads it again once its threads run.
func FutexHash() (mode string, slots int) {
	n, err := unix.PrctlRetInt(prFutexHash, prFutexHashGetSlots, 0, 0, 0)
	switch {
	case errors.Is(err, unix.EINVAL):
		return "global", 0 // no PR_FUTEX_HASH: the kernel predates 6.16
	case err != nil:
		return "", 0
	case n <= 0:
		return "global", 0
	}
	return "private", n
}
