//go:build !linux

package parkers

func init() {
	why := onlyOn("Linux only: futex(2) is a Linux system call")
	for _, v := range []struct {
		name  string
		order int
	}{{NameFutexPlain, orderFutexPlain}, {NameFutexSpin, orderFutexSpin}, {NameFutexCgo, orderFutexCgo}, {NameFutexRaw1ms, orderFutexRaw1ms}} {
		Register(Backend{Name: v.name, Kind: KindThread, Summary: "futex variant (Linux only): " + SchedSetting(v.name),
			Sleeps: true, CheapToConstruct: true, Unavailable: why, Order: v.order})
	}
}
