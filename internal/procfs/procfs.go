// Package procfs reads what Linux says about one thread of this process while
// it sleeps (/proc/self/task/TID/{wchan,syscall,stat,stack}) and decodes it:
// the system call number into a name for the machine's architecture, futex
// operations into their linux/futex.h names, and the address a thread waits
// on into the mapping (and, for known objects, the field) it lies in.
//
// The decoders are pure and build everywhere; reading /proc is Linux only
// (Read returns ErrUnsupported elsewhere).
package procfs

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// ErrUnsupported is returned by Read on systems without /proc/self/task.
var ErrUnsupported = errors.New("procfs: /proc/self/task is Linux only (this is " + runtime.GOOS + ")")

// Task is one thread's sleeping state as /proc reports it. Each field that
// could not be read has its error in the matching *Err field, so a partial
// view (no kernel stack when not root) is still useful.
type Task struct {
	Tid int
	// Stat is /proc/self/task/TID/stat, decoded.
	Stat    Stat
	StatErr error
	// Wchan is the kernel function the thread sleeps in ("0" or "" when
	// it is running or the kernel hides it).
	Wchan    string
	WchanErr error
	// Syscall is /proc/self/task/TID/syscall, decoded.
	Syscall    Syscall
	SyscallErr error
	// Stack is the kernel stack, innermost frame first, without the
	// "[<0>] " address prefix (the kernel shows zeros to non-root).
	Stack    []string
	StackErr error
}

// Stat is the part of /proc/TID/stat that says where a thread is.
type Stat struct {
	Comm  string
	State byte // R running, S sleeping (interruptible), D uninterruptible, T stopped, ...
	// Processor is the CPU the thread last ran on (field 39).
	Processor int
	// MinFlt etc. are not needed here.
}

// StateName spells a scheduler state letter out.
func StateName(s byte) string {
	switch s {
	case 'R':
		return "running"
	case 'S':
		return "sleeping (interruptible)"
	case 'D':
		return "uninterruptible sleep"
	case 'T':
		return "stopped"
	case 't':
		return "tracing stop"
	case 'Z':
		return "zombie"
	case 'X':
		return "dead"
	case 'I':
		return "idle"
	case 'P':
		return "parked"
	}
	return "unknown"
}

// ParseStat decodes the content of /proc/PID/stat. The comm field is in
// parentheses and may itself contain spaces and parentheses, so the fields
// are counted from the last ')'.
func ParseStat(s string) (Stat, error) {
	open := strings.IndexByte(s, '(')
	closeIdx := strings.LastIndexByte(s, ')')
	if open < 0 || closeIdx < open || closeIdx+2 >= len(s) {
		return Stat{}, fmt.Errorf("procfs: malformed stat %q", trim(s))
	}
	st := Stat{Comm: s[open+1 : closeIdx], Processor: -1}
	rest := strings.Fields(s[closeIdx+1:])
	if len(rest) == 0 || len(rest[0]) != 1 {
		return Stat{}, fmt.Errorf("procfs: malformed stat state in %q", trim(s))
	}
	st.State = rest[0][0]
	// rest[0] is field 3 (state); field 39 (processor) is rest[36].
	if len(rest) > 36 {
		if p, err := strconv.Atoi(rest[36]); err == nil {
			st.Processor = p
		}
	}
	return st, nil
}

// Syscall is the decoded content of /proc/PID/task/TID/syscall.
type Syscall struct {
	// Running is true when the thread was running (the file says
	// "running"): there is no system call to show.
	Running bool
	// InSyscall is true when the thread is blocked in a system call; false
	// with Running false means it is blocked outside one (the file says
	// "-1 SP PC": a page fault, or stopped in user space).
	InSyscall bool
	Nr        int
	Args      [6]uint64
	SP, PC    uint64
}

// ParseSyscall decodes /proc/PID/task/TID/syscall: "running", "-1 SP PC", or
// "NR ARG1 ... ARG6 SP PC" (NR decimal, the rest hex).
func ParseSyscall(s string) (Syscall, error) {
	f := strings.Fields(s)
	if len(f) == 1 && f[0] == "running" {
		return Syscall{Running: true, Nr: -1}, nil
	}
	if len(f) == 0 {
		return Syscall{}, errors.New("procfs: empty syscall file")
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil {
		return Syscall{}, fmt.Errorf("procfs: malformed syscall %q", trim(s))
	}
	hex := func(t string) (uint64, error) { return strconv.ParseUint(strings.TrimPrefix(t, "0x"), 16, 64) }
	sc := Syscall{Nr: nr}
	switch {
	case nr == -1 && len(f) == 3:
	case nr >= 0 && len(f) == 9:
		sc.InSyscall = true
		for i := 0; i < 6; i++ {
			if sc.Args[i], err = hex(f[1+i]); err != nil {
				return Syscall{}, fmt.Errorf("procfs: malformed syscall argument in %q", trim(s))
			}
		}
	default:
		return Syscall{}, fmt.Errorf("procfs: malformed syscall %q", trim(s))
	}
	if sc.SP, err = hex(f[len(f)-2]); err != nil {
		return Syscall{}, fmt.Errorf("procfs: malformed syscall sp in %q", trim(s))
	}
	if sc.PC, err = hex(f[len(f)-1]); err != nil {
		return Syscall{}, fmt.Errorf("procfs: malformed syscall pc in %q", trim(s))
	}
	return sc, nil
}

// ParseStack decodes /proc/PID/task/TID/stack: one "[<addr>] func+off/len"
// per line, innermost first. The address prefix is dropped.
func ParseStack(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "[<") {
			if i := strings.Index(line, ">]"); i >= 0 {
				line = strings.TrimSpace(line[i+2:])
			}
		}
		out = append(out, line)
	}
	return out
}

// StackFunc strips "+off/len" from a kernel stack frame.
func StackFunc(frame string) string {
	if i := strings.IndexByte(frame, '+'); i > 0 {
		return frame[:i]
	}
	return frame
}

func trim(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
