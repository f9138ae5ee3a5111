package parkers

// List order of `parkbench list`: the platform default first, then the
// kernel-sleeping thread parkers in parking_lot_core's cfg_if order, the token
// parkers, the OS-specific ones that only run elsewhere, the non-sleeping
// ones, and last the Go-native (goroutine-level) mechanisms.
const (
	orderDefault          = 0
	orderFutex            = 10
	orderFutexRaw         = 11
	orderPthread          = 20
	orderPthreadWallclock = 21
	orderPthreadRelative  = 22
	orderStd              = 30
	orderCrossbeam        = 40
	orderWaitOnAddress    = 50
	orderKeyedEvent       = 51
	orderWasm             = 60
	orderSpin             = 70
	orderYield            = 71
	orderGosched          = 72
	orderGeneric          = 73
	orderGenericYield     = 74
	orderChan             = 80
	orderCond             = 81
)

// Backend names, the user's --impl vocabulary.
const (
	NameDefault          = "default"
	NameFutex            = "futex"
	NameFutexRaw         = "futex-raw"
	NamePthread          = "pthread"
	NamePthreadWallclock = "pthread-wallclock"
	NamePthreadRelative  = "pthread-relative"
	NameStd              = "std"
	NameCrossbeam        = "crossbeam"
	NameWaitOnAddress    = "waitonaddress"
	NameKeyedEvent       = "keyedevent"
	NameWasm             = "wasm"
	NameSpin             = "spin"
	NameYield            = "yield"
	NameGosched          = "gosched"
	NameGeneric          = "generic"
	NameGenericYield     = "generic-yield"
	NameChan             = "chan"
	NameCond             = "cond"
)
