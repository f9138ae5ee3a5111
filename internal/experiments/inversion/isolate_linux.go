package inversion

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// isolation is the process's other threads moved off the measured CPU for
// a session, and how to put them back.
//
// Why: the Go runtime's own threads (sysmon, idle Ms woken to take a P,
// the template thread) run at SCHED_OTHER and may be on the measured CPU.
// There medium (SCHED_FIFO) starves them for its whole spin, and if one of
// them holds a runtime lock (sched.lock, taken when a thread leaving a
// system call looks for a P) that high then needs, high waits the spin out
// whatever the lock under test does: an inversion inside the Go runtime,
// whose locks do not inherit priority. Seen on the 2-vCPU guest before
// this: 1 to 10 ms waits in a few PI rounds in 30, with low's critical
// section itself short. With every other thread of the process kept off
// the CPU (and the Ms created later inheriting the template thread's
// mask), only the three RT threads run Go code there.
type isolation struct {
	saved map[int]unix.CPUSet
}

// isolate moves every thread of the process except keep off cpu, where it
// has another CPU to go to.
func isolate(cpu int, keep []int) *isolation {
	iso := &isolation{saved: map[int]unix.CPUSet{}}
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return iso
	}
	skip := map[int]bool{}
	for _, t := range keep {
		skip[t] = true
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil || skip[tid] {
			continue
		}
		var set unix.CPUSet
		if unix.SchedGetaffinity(tid, &set) != nil || !set.IsSet(cpu) || set.Count() < 2 {
			continue
		}
		moved := set
		moved.Clear(cpu)
		if unix.SchedSetaffinity(tid, &moved) == nil {
			iso.saved[tid] = set
		}
	}
	return iso
}

// restore puts back every mask isolate changed (a thread that exited
// meanwhile is gone: ESRCH is ignored).
func (iso *isolation) restore() {
	for tid, set := range iso.saved {
		_ = unix.SchedSetaffinity(tid, &set)
	}
}
