package parkers

import (
	"fmt"
	"runtime"
)

// windowsDefault is set on Windows: it makes upstream's run-time choice
// (WaitOnAddress, else keyed events) and returns the chosen name, or
// upstream's panic message as an error.
var windowsDefault func() (string, error)

// defaultTarget is the backend parking_lot_core would use here, in its
// cfg_if order (thread_parker/mod.rs): linux/android futex, other unix
// pthread, windows run-time choice, wasm panicking, anything else generic.
// (redox, sgx and wasm+atomics have no Go target.)
func defaultTarget() (string, error) {
	switch runtime.GOOS {
	case "linux", "android":
		return NameFutex, nil
	case "windows":
		if windowsDefault == nil {
			return "", fmt.Errorf("windows backend selection not built")
		}
		return windowsDefault()
	case "wasip1", "js":
		return NameWasm, nil
	case "aix", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "netbsd", "openbsd", "solaris":
		return NamePthread, nil
	}
	return NameGeneric, nil
}

// DefaultName is the concrete backend name "default" resolves to on this
// OS, e.g. "futex" on Linux. If the platform's parker cannot be built here
// (Unix without cgo, a Windows without either API) it still names it; the
// backend's Why says what is missing.
func DefaultName() string {
	name, err := defaultTarget()
	if err != nil {
		return NameWaitOnAddress
	}
	return name
}

// Default returns the concrete backend "default" resolves to here (the
// futex Backend on Linux), not the "default" alias entry itself.
func Default() Backend {
	b, _ := lookup(DefaultName())
	return b
}

func defaultWhy() error {
	name, err := defaultTarget()
	if err != nil {
		return err
	}
	b, ok := lookup(name)
	if !ok {
		return fmt.Errorf("platform parker %q is not registered", name)
	}
	if why := b.Why(); why != "" {
		if name == NamePthread {
			return fmt.Errorf("parking_lot uses pthread on %s, which %s", runtime.GOOS, why)
		}
		return fmt.Errorf("%s: %s", name, why)
	}
	return nil
}

func init() {
	provide(NameDefault, defaultWhy, func() ThreadParker {
		name, err := defaultTarget()
		if err != nil {
			panic(err.Error())
		}
		b, _ := Lookup(name)
		if b.NewThread == nil {
			panic("parkers: default backend " + name + " is not available: " + b.Why())
		}
		return b.NewThread()
	}, nil)
}
