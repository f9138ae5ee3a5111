package drivertest

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/longtest"
)

// GoCommand is the go command for a test that runs it (go list, go run), and
// the build flags that make it build as this test binary was built: -race
// when the binary has the race detector, so that the packages `go test
// -race ./...` compiled are reused instead of the whole closure compiled a
// second time without it (TestNoFileCircles's export data: 251 packages, 88
// CPU-seconds from a cold cache). It skips t where there is no go command or
// it is not this platform's (under Wine or qemu-user the go command is the
// host's: the check runs on the host, in .ci/run's test step).
func GoCommand(t testing.TB) (gobin string, flags []string) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH (%v)", err)
	}
	host, err := exec.Command(gobin, "env", "GOHOSTOS", "GOHOSTARCH").Output()
	if f := strings.Fields(string(host)); err != nil || len(f) != 2 || f[0] != runtime.GOOS || f[1] != runtime.GOARCH {
		t.Skipf("not on the go command's host (%s/%s; go env: %q, %v)", runtime.GOOS, runtime.GOARCH, host, err)
	}
	if longtest.Race {
		flags = []string{"-race"}
	}
	return gobin, flags
}
