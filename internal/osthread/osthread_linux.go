package osthread

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Tid returns the calling thread's kernel thread id.
func Tid() int { return unix.Gettid() }

// CPU returns the CPU the calling thread is running on (sched_getcpu via the
// getcpu syscall; vDSO-backed in glibc, a plain syscall here).
func CPU() int {
	var cpu, node uint32
	_, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptrOf(&cpu), uintptrOf(&node), 0)
	if e != 0 {
		return -1
	}
	return int(cpu)
}

// Pin sets the calling thread's affinity to exactly the given CPUs.
// The caller must be locked to its OS thread.
func Pin(cpus ...int) error {
	var set unix.CPUSet
	set.Zero()
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("sched_setaffinity %v: %w", cpus, err)
	}
	return nil
}

// Affinity returns the CPUs the calling thread may run on.
func Affinity() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var cpus []int
	for c := 0; c < 1024; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// ThreadUsage returns the calling thread's rusage (RUSAGE_THREAD).
func ThreadUsage() (Rusage, error) { return usage(unix.RUSAGE_THREAD) }

// ProcessUsage returns the whole process's rusage (RUSAGE_SELF).
func ProcessUsage() (Rusage, error) { return usage(unix.RUSAGE_SELF) }

func usage(who int) (Rusage, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return Rusage{}, err
	}
	return Rusage{
		Voluntary:   int64(ru.Nvcsw),
		Involuntary: int64(ru.Nivcsw),
		UserNs:      ru.Utime.Nano(),
		SysNs:       ru.Stime.Nano(),
	}, nil
}

// State returns the scheduler state letter of thread tid of this process
// (field 3 of /proc/self/task/TID/stat: R running, S sleeping, D disk, ...).
func State(tid int) (byte, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		return 0, err
	}
	// The comm field is in parentheses and may contain spaces: the state
	// is the first field after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0, fmt.Errorf("unexpected /proc stat format for tid %d", tid)
	}
	return s[i+2], nil
}
