package lock

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
)

// TestLoopGenFresh: loop_gen.go is what gen_loops.go writes from
// loop_gen.go.tmpl today (a template edited without `go generate` would
// leave the measured loops behind it).
func TestLoopGenFresh(t *testing.T) {
	// Built as this test binary was (drivertest.GoCommand), the generator
	// reuses the standard library `go test -race` compiled; its output does
	// not depend on it.
	gobin, flags := drivertest.GoCommand(t)
	out := filepath.Join(t.TempDir(), "loop_gen")
	args := append(append([]string{"run"}, flags...), "gen_loops.go", "-o", out)
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
