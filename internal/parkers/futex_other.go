//go:build !linux

package parkers

func init() {
	why := onlyOn("Linux only: futex(2) is a Linux system call")
	Register(Backend{Name: NameFutex, Kind: KindThread, Summary: "parking_lot linux.rs: private FUTEX_WAIT/FUTEX_WAKE (Linux only)",
		Sleeps: true, CheapToConstruct: true, Unavailable: why, Order: orderFutex})
	Register(Backend{Name: NameFutexRaw, Kind: KindThread, Summary: "futex with the wait through RawSyscall6, bypassing the Go scheduler (Linux only)",
		Sleeps: true, CheapToConstruct: true, Unavailable: why, Order: orderFutexRaw})
}
