//go:build linux

package schedacct

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

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

// FindSysmon returns the thread id of the runtime's sysmon, or 0 if it cannot
// tell. sysmon is the only Go thread that sleeps in nanosleep (usleep between
// its ticks; runtime/proc.go sysmon), and it spends nearly all its time
// there; every other Go thread sleeps in futex or epoll_wait. It samples the
// threads' current system call a few times, 1 ms apart (a sysmon in deep
// sleep waits in futex, so a process with nothing running may show none).
func FindSysmon(exclude []int) int {
	for try := 0; try < 5; try++ {
		if try > 0 {
			time.Sleep(time.Millisecond)
		}
		tids, err := procfs.Tasks()
		if err != nil {
			return 0
		}
		found := 0
		for _, tid := range tids {
			if containsTid(exclude, tid) {
				continue
			}
			t, err := procfs.Read(tid)
			if err != nil {
				continue
			}
			if strings.Contains(t.Wchan, "nanosleep") || (t.SyscallErr == nil && t.Syscall.InSyscall && strings.HasSuffix(procfs.SyscallName(runtime.GOARCH, t.Syscall.Nr), "nanosleep")) {
				if found != 0 {
					found = -1 // two candidates: not sure
					break
				}
				found = tid
			}
		}
		if found > 0 {
			return found
		}
	}
	return 0
}
