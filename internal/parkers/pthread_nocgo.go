//go:build !(unix && cgo)

package parkers

import "runtime"

func init() {
	why := unavailable(whyNeedsCgo)
	switch runtime.GOOS {
	case "windows", "wasip1", "js", "plan9":
		why = onlyOn("Unix only: pthread mutex + condvar through cgo")
	}
	registerPthread(why, nil, nil, nil)
}
