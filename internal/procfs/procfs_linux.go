//go:build linux

package procfs

import (
	"debug/elf"
	"fmt"
	"os"
	"strings"
)

func taskPath(tid int, file string) string {
	return fmt.Sprintf("/proc/self/task/%d/%s", tid, file)
}

// Read samples thread tid of this process. It fails only if the thread does
// not exist; files that cannot be read leave their error in the Task.
func Read(tid int) (Task, error) {
	t := Task{Tid: tid}
	b, err := os.ReadFile(taskPath(tid, "stat"))
	if err != nil {
		return t, fmt.Errorf("procfs: thread %d: %w", tid, err)
	}
	t.Stat, t.StatErr = ParseStat(string(b))
	if b, err := os.ReadFile(taskPath(tid, "wchan")); err != nil {
		t.WchanErr = err
	} else {
		t.Wchan = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile(taskPath(tid, "syscall")); err != nil {
		t.SyscallErr = err
	} else {
		t.Syscall, t.SyscallErr = ParseSyscall(string(b))
	}
	if b, err := os.ReadFile(taskPath(tid, "stack")); err != nil {
		t.StackErr = err
	} else {
		t.Stack = ParseStack(string(b))
	}
	return t, nil
}

// State reads only the scheduler state letter of thread tid (cheap, for
// polling until a thread is asleep).
func State(tid int) (byte, error) {
	b, err := os.ReadFile(taskPath(tid, "stat"))
	if err != nil {
		return 0, err
	}
	st, err := ParseStat(string(b))
	return st.State, err
}

// Tasks lists the thread ids of this process.
func Tasks() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		var tid int
		if _, err := fmt.Sscan(e.Name(), &tid); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}

// Maps reads /proc/self/maps.
func Maps() ([]Mapping, error) {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil, err
	}
	return ParseMaps(string(b))
}

// SelfSymbols loads this executable's data symbols, with the load bias of
// a position-independent executable taken from maps.
func SelfSymbols(maps []Mapping) (*Symbols, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return nil, err
	}
	var bias uint64
	if f, err := elf.Open(exe); err == nil {
		if f.Type == elf.ET_DYN {
			var lowest uint64 = ^uint64(0)
			for _, p := range f.Progs {
				if p.Type == elf.PT_LOAD && p.Vaddr < lowest {
					lowest = p.Vaddr
				}
			}
			for _, m := range maps {
				if m.Path == exe {
					bias = m.Start - (lowest &^ 0xfff)
					break
				}
			}
		}
		f.Close()
	}
	return LoadSymbols(exe, bias)
}

// ReadMem reads n bytes of this process's memory at addr through
// /proc/self/mem: an unmapped address is an error, not a fault.
func ReadMem(addr uint64, n int) ([]byte, error) {
	f, err := os.Open("/proc/self/mem")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	m, err := f.ReadAt(b, int64(addr))
	if err != nil && m != n {
		return nil, err
	}
	return b, nil
}
