//go:build linux

package schedacct

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/procfs"
)

// TakeSnapshot reads voluntary_ctxt_switches + nonvoluntary_ctxt_switches of
// every thread of this process (/proc/self/task/TID/status).
func TakeSnapshot() (Snapshot, error) {
	tids, err := procfs.Tasks()
	if err != nil {
		return nil, err
	}
	s := make(Snapshot, len(tids))
	for _, tid := range tids {
		b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
		if err != nil {
			continue // exited since the listing
		}
		s[tid] = switchesOf(string(b))
	}
	return s, nil
}

// switchesOf sums the two *_ctxt_switches lines of a status file.
func switchesOf(status string) int64 {
	var n int64
	for _, line := range strings.Split(status, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "voluntary_ctxt_switches" && k != "nonvoluntary_ctxt_switches") {
			continue
		}
		if x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			n += x
		}
	}
	return n
}

// ThreadSwitches is one thread's voluntary + involuntary context switches.
func ThreadSwitches(tid int) (int64, error) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0, err
	}
	return switchesOf(string(b)), nil
}

// ThreadSwitchesSplit is one thread's voluntary and involuntary context
// switches (the RUSAGE_THREAD counts, read from outside the thread).
func ThreadSwitchesSplit(tid int) (vol, invol int64, err error) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0, 0, err
	}
	vol, invol = -1, -1
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		x, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch {
		case perr != nil:
		case k == "voluntary_ctxt_switches":
			vol = x
		case k == "nonvoluntary_ctxt_switches":
			invol = x
		}
	}
	if vol < 0 || invol < 0 {
		return 0, 0, errors.New("schedacct: no *_ctxt_switches lines in /proc/self/task/" + strconv.Itoa(tid) + "/status")
	}
	return vol, invol, nil
}

// FindSysmon returns the thread id of the runtime's sysmon, or 0 if it cannot
// tell. sysmon is the only Go thread that sleeps in nanosleep (usleep between
// its ticks; Go runtime/proc.go sysmon) and it spends nearly all its time
// there; every other Go thread sleeps in futex or epoll_wait. When every P is
// idle sysmon sleeps on a note (futex) instead, so FindSysmon keeps its own
// goroutine running (it never sleeps) while it samples the threads' current
// system call, up to 200 times, and answers once one thread, and only one,
// has been seen in nanosleep three times. exclude lists threads that are not
// Go's (a C thread may nanosleep).
func FindSysmon(exclude []int) int {
	seen := map[int]int{}
	for try := 0; try < 200; try++ {
		tids, err := procfs.Tasks()
		if err != nil {
			return 0
		}
		for _, tid := range tids {
			if containsTid(exclude, tid) {
				continue
			}
			t, err := procfs.Read(tid)
			if err != nil {
				continue
			}
			if strings.Contains(t.Wchan, "nanosleep") ||
				(t.SyscallErr == nil && t.Syscall.InSyscall && strings.HasSuffix(procfs.SyscallName(runtime.GOARCH, t.Syscall.Nr), "nanosleep")) {
				seen[tid]++
			}
		}
		if len(seen) > 1 {
			return 0 // two candidates: cannot tell
		}
		for tid, n := range seen {
			if n >= 3 {
				return tid
			}
		}
	}
	return 0
}
