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
//
// Invariant after restore: no thread of the process is left without cpu
// because of the session. The Ms created during it inherited a moved mask
// from their creator (that is the point above), so restore gives cpu back
// to every thread it did not know at isolate time, not only to the ones it
// moved; without that, the next run's survey, reading the affinity of
// whichever thread it happens on, found one usable CPU and refused.
type isolation struct {
	cpu   int
	saved map[int]unix.CPUSet
	known map[int]bool // the threads there at isolate time, moved or not
}

// tids lists the process's threads (nil if /proc cannot be read).
func tids() []int {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	out := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out
}

// isolate moves every thread of the process except keep off cpu, where it
// has another CPU to go to.
func isolate(cpu int, keep []int) *isolation {
	iso := &isolation{cpu: cpu, saved: map[int]unix.CPUSet{}, known: map[int]bool{}}
	for _, t := range keep {
		iso.known[t] = true
	}
	for _, tid := range tids() {
		if iso.known[tid] {
			continue
		}
		iso.known[tid] = true
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

// restore puts back every mask isolate changed, and gives cpu back to
// every thread born during the session (a thread that exited meanwhile is
// gone: ESRCH is ignored).
func (iso *isolation) restore() {
	for tid, set := range iso.saved {
		_ = unix.SchedSetaffinity(tid, &set)
	}
	for _, tid := range tids() {
		if iso.known[tid] {
			continue
		}
		var set unix.CPUSet
		if unix.SchedGetaffinity(tid, &set) != nil || set.IsSet(iso.cpu) {
			continue
		}
		set.Set(iso.cpu)
		_ = unix.SchedSetaffinity(tid, &set)
	}
}
