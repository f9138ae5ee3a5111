package cli

import (
	"bytes"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWakeLoadedInterrupt: SIGINT or SIGTERM during wake or loaded exits
// 130 and writes nothing.
func TestWakeLoadedInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a measurement")
	}
	interrupt(t, syscall.SIGINT, 1500*time.Millisecond, 60*time.Second, "wake", "--impl=lot", "--bench=wake", "--threads=2", "--runs=1000", "--quiet")
	interrupt(t, syscall.SIGTERM, 1500*time.Millisecond, 60*time.Second, "loaded", "--impl=lot", "--loads=10,50", "--duration=1s", "--rounds=50", "--quiet")
}

// TestWakeFormatPerf: --format=perf prints perf bench futex's lines, one
// block per configuration.
func TestWakeFormatPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a measurement")
	}
	var out, errb bytes.Buffer
	args := []string{"wake", "--impl=lot", "--bench=wake,requeue", "--threads=2", "--wakes=1", "--requeues=1", "--runs=2", "--settle=0", "--format=perf", "--quiet"}
	if code := executeTo(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"# Running 'futex/wake' benchmark:", "Run summary [PID ", "waking up 1 at a time.", "[Run 1]: Wokeup 2 of 2 threads in ", "[Run 2]: ",
		"Wokeup 2 of 2 threads in ", " ms (+-", "# Running 'futex/requeue' benchmark:", "Requeued 2 of 2 threads in ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--format=perf output lacks %q:\n%s", want, out.String())
		}
	}
}
