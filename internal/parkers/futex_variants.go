package parkers

// The futex variants beyond parking_lot's linux.rs (futex) and the raw
// bypass (futex-raw): what the Go scheduler adds to a wake, and the settings
// that take it away (docs/scheduler.md). Their names, order and summaries
// are in the table (backends.go); they run on Linux only.
// futexVariantSched is each variant's wait, one line for results (the
// setting recorded beside every figure). Keep in step with futexVariants.
var futexVariantSched = map[string]string{
	NameFutex:       "Syscall6 (entersyscall/exitsyscall), keep-alive Gosched every 5ms of parks",
	NameFutexPlain:  "Syscall6 (entersyscall/exitsyscall), no keep-alive: linux.rs as is",
	NameFutexSpin:   "Syscall6, keep-alive Gosched every 5ms, 100 checks of the word before FUTEX_WAIT",
	NameFutexCgo:    "cgo call to syscall(SYS_futex) (cgocall: entersyscall/exitsyscall), no keep-alive",
	NameFutexRaw:    "RawSyscall6 (the P stays with the thread), every wait bounded to 1s (interrupted by the runtime's preemption signal), keep-alive Gosched every 5ms",
	NameFutexRaw1ms: "RawSyscall6, every wait bounded to 1ms, keep-alive Gosched every 5ms",
}

// SchedSetting says how backend name's wait deals with the Go scheduler, for
// the futex family; "" for every other backend.
func SchedSetting(name string) string { return futexVariantSched[name] }

// IsRaw reports whether backend name waits through RawSyscall, bypassing the
// scheduler (the thread keeps its P while it sleeps).
func IsRaw(name string) bool { return name == NameFutexRaw || name == NameFutexRaw1ms }

// IsVariant reports whether backend name is one of the futex measurement
// variants above (not futex or futex-raw themselves): the same word and
// protocol as futex, only the wait's path differs, so the parkers'
// conformance tests cover them and the lot's hammers need not run each.
func IsVariant(name string) bool {
	switch name {
	case NameFutexPlain, NameFutexSpin, NameFutexCgo, NameFutexRaw1ms:
		return true
	}
	return false
}
