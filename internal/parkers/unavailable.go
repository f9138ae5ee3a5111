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
