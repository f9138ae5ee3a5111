package osthread

import "golang.org/x/sys/windows"

// Tid returns the calling thread's id (GetCurrentThreadId, read from the
// thread's TEB by kernel32: no system call, no allocation).
func Tid() int { return int(windows.GetCurrentThreadId()) }
