package parkers

import (
	"errors"
	"runtime"
)

// unavailable returns an Unavailable func that always reports why.
func unavailable(why string) func() error {
	err := errors.New(why)
	return func() error { return err }
}

// onlyOn is the reason for a backend tied to one OS family.
func onlyOn(what string) func() error {
	return unavailable(what + " (this is " + runtime.GOOS + "/" + runtime.GOARCH + ")")
}

// errNeedsCgo is the reason for the cgo backends in a CGO_ENABLED=0 build.
const whyNeedsCgo = "needs cgo (CGO_ENABLED=1 and a C compiler): the pthread mutex and condvar live in C memory and are called through cgo"
