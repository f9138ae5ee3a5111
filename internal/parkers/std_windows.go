//go:build windows

package parkers

func init() {
	provide(NameStd, func() error {
		_, err := winSel.get()
		return err
	}, nil, newStdWindows)
}

func newStdWindows() TokenParker {
	c, err := winSel.get()
	if err != nil {
		panic(err.Error())
	}
	return newStdWin(c)
}
