//go:build !((linux || darwin) && cgo)

package plugin

import (
	"errors"
	"runtime"
)

// Supported says why plugins do not load here.
func Supported() error {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		return errors.New("plugins load on Linux and macOS only (dlopen through cgo)")
	}
	return errors.New("plugins need cgo (CGO_ENABLED=1 and a C compiler): they are loaded with dlopen")
}

func open(string) (*Library, error) { return nil, Supported() }
