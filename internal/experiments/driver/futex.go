package driver

import (
	"errors"
	"runtime"

	"github.com/parkbench/parkbench/internal/futexsync"
)

// NeedFutex is why a mechanism built on futexes does not run here (a
// Catalog entry's unavailable): nil on Linux, the one OS with futexes.
func NeedFutex() error {
	if !futexsync.Supported {
		return errors.New("futexes exist only on Linux; this is " + runtime.GOOS)
	}
	return nil
}
