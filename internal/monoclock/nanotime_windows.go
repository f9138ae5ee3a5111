package monoclock

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	qpc     = windows.NewLazySystemDLL("kernel32.dll").NewProc("QueryPerformanceCounter")
	qpcFreq int64
)

func init() {
	f := windows.NewLazySystemDLL("kernel32.dll").NewProc("QueryPerformanceFrequency")
	if r, _, err := f.Call(uintptr(unsafe.Pointer(&qpcFreq))); r == 0 || qpcFreq <= 0 {
		panic("monoclock: QueryPerformanceFrequency: " + err.Error())
	}
}

// Nanotime is QueryPerformanceCounter in ns. It never fails on XP and later
// (Microsoft's documentation), so the result is not checked per call.
func Nanotime() int64 {
	var c int64
	syscall.SyscallN(qpc.Addr(), uintptr(unsafe.Pointer(&c)))
	// c/f*1e9 without overflow for any uptime: whole seconds, then the
	// remainder.
	return c/qpcFreq*1e9 + c%qpcFreq*1e9/qpcFreq
}

// Source names the clock, for results.
const Source = "QueryPerformanceCounter"
