//go:build linux

package procfs

import (
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestReadSelf(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	task, err := Read(tid)
	if err != nil {
		t.Fatal(err)
	}
	if task.StatErr != nil || task.Stat.State != 'R' {
		t.Fatalf("stat: %+v %v", task.Stat, task.StatErr)
	}
	if task.SyscallErr == nil && !task.Syscall.Running {
		// Reading one's own syscall file shows the read in progress.
		if SyscallName(runtime.GOARCH, task.Syscall.Nr) != "read" {
			t.Errorf("self syscall: %+v", task.Syscall)
		}
	}
	tids, err := Tasks()
	if err != nil || len(tids) == 0 {
		t.Fatalf("Tasks: %v %v", tids, err)
	}
	if _, err := Maps(); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(1 << 30); err == nil {
		t.Fatal("reading a thread that does not exist must fail")
	}
}

var testDataWord int64 = 42

func TestSelfSymbols(t *testing.T) {
	maps, err := Maps()
	if err != nil {
		t.Fatal(err)
	}
	syms, err := SelfSymbols(maps)
	if err != nil {
		t.Skip("no symbols:", err)
	}
	name, ok := syms.Lookup(uint64(uintptr(unsafe.Pointer(&testDataWord))))
	if !ok || name != "github.com/parkbench/parkbench/internal/procfs.testDataWord" {
		t.Fatalf("Lookup = %q %v", name, ok)
	}
}

func TestReadMem(t *testing.T) {
	b, err := ReadMem(uint64(uintptr(unsafe.Pointer(&testDataWord))), 8)
	if err != nil || len(b) != 8 || b[0] != 42 {
		t.Fatalf("ReadMem = %v, %v", b, err)
	}
	if _, err := ReadMem(8, 8); err == nil {
		t.Fatal("reading address 8 must fail")
	}
}
