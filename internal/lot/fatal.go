package lot

import (
	"os"
	"runtime"
)

// fatal ends the process for a misuse the lot cannot survive, as the Go
// runtime's fatal does for sync's "unlock of unlocked mutex"
// (go/src/sync/mutex.go, fatal): nothing can recover it, and no deferred
// function runs. User code cannot reach the runtime's throw, so fatal
// writes what throw writes ("fatal error: " and the message, then the
// calling goroutine's stack) to standard error and exits with status 2,
// the status of a throw or an unrecovered panic.
//
// It is used only where a panic would leave a primitive broken: the state
// another thread handed over is already gone, and no unwinding can give it
// back (see Park).
func fatal(msg string) {
	buf := make([]byte, 64<<10)
	n := runtime.Stack(buf, false)
	os.Stderr.WriteString("fatal error: " + msg + "\n\n" + string(buf[:n]) + "\n")
	os.Exit(2)
}
