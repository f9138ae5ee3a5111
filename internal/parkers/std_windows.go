//go:build windows

package parkers

func init() {
	Register(Backend{
		Name: NameStd,
		Kind: KindToken,
		Summary: "Rust std's Windows thread::park (windows7.rs): i8 PARKED=-1/EMPTY=0/NOTIFIED=1, WaitOnAddress(state, &PARKED, 1)/" +
			"WakeByAddressSingle, timeout in ms rounded up, park_timeout may return spuriously; NT keyed events where WaitOnAddress is missing (std's win7 target)",
		Sleeps:           true,
		CheapToConstruct: true,
		Unavailable: func() error {
			_, err := winSel.get()
			return err
		},
		NewToken:  newStdWindows,
		NewThread: ThreadFromToken(newStdWindows),
		Order:     orderStd,
	})
}

func newStdWindows() TokenParker {
	c, err := winSel.get()
	if err != nil {
		panic(err.Error())
	}
	return newStdWin(c)
}
