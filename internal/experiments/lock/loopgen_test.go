package lock

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLoopGenFresh: loop_gen.go is what gen_loops.go writes from
// loop_gen.go.tmpl today (a template edited without `go generate` would
// leave the measured loops behind it).
func TestLoopGenFresh(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH (%v)", err)
	}
	// Under Wine or qemu-user the go command is the host's: run the check
	// on the host only.
	host, err := exec.Command(gobin, "env", "GOHOSTOS", "GOHOSTARCH").Output()
	if f := strings.Fields(string(host)); err != nil || len(f) != 2 || f[0] != runtime.GOOS || f[1] != runtime.GOARCH {
		t.Skipf("not on the go command's host (%s/%s; go env: %q, %v)", runtime.GOOS, runtime.GOARCH, host, err)
	}
	out := filepath.Join(t.TempDir(), "loop_gen")
	args := []string{"run", "gen_loops.go", "-o", out}
	if raceEnabled {
		// Built as this test binary was, the generator reuses the standard
		// library `go test -race` compiled; without -race, from a cold build
		// cache, its imports (runtime, fmt, go/format, text/template...) are
		// compiled again, 29 CPU-seconds. Its output does not depend on it.
		args = []string{"run", "-race", "gen_loops.go", "-o", out}
	}
	if b, err := exec.Command(gobin, args...).CombinedOutput(); err != nil {
		t.Fatalf("go run gen_loops.go: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("loop_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("loop_gen.go is not what gen_loops.go writes: run `go generate` in internal/experiments/lock")
	}
}
