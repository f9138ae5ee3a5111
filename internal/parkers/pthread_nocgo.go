//go:build !(unix && cgo)

package parkers

import "runtime"

// whyNeedsCgo is the reason for the cgo backends in a CGO_ENABLED=0 build.
const whyNeedsCgo = "needs cgo (CGO_ENABLED=1 and a C compiler): the pthread mutex and condvar live in C memory and are called through cgo"

func init() {
	why := unavailable(whyNeedsCgo)
	switch runtime.GOOS {
	case "windows", "wasip1", "js", "plan9":
		why = onlyOn("Unix only: pthread mutex + condvar through cgo")
	}
	registerPthread(why, nil, nil, nil)
}
