package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/inversion"
)

// rtprios is `ps -L -o rtprio= -p pid`: one line per thread, "-" for a
// thread not in a real-time class.
func rtprios(t *testing.T, pid int) []string {
	out, err := exec.Command("ps", "-L", "-o", "rtprio=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return nil // the process is gone
	}
	return strings.Fields(string(out))
}

// TestInversionInterrupt: SIGINT during `parkbench inversion`, once its
// threads are at SCHED_FIFO (seen with ps -L -o rtprio), exits 130,
// writes nothing, and leaves no thread of it at RT priority (ps -eLo
// rtprio lists none with its pid; in-process restoration is
// TestRunRestores in internal/experiments/inversion).
func TestInversionInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a measurement")
	}
	if im := inversion.Impls(); len(im) == 0 || im[0].Why != "" {
		t.Skip("inversion does not run here: ", im[0].Why)
	}
	dir := tempDir(t)
	cmd := exec.Command(os.Args[0], "inversion", "--impl=pi-futex,std-futex", "--medium=5ms", "--repeats=2000", "--quiet", "--out", filepath.Join(dir, "r.json"))
	cmd.Env = append(os.Environ(), "PARKBENCH_AS_MAIN=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	sawRT := false
	for deadline := time.Now().Add(20 * time.Second); !sawRT && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, p := range rtprios(t, cmd.Process.Pid) {
			if p != "-" {
				sawRT = true
			}
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("inversion did not stop within 30 s of SIGINT")
	}
	if !sawRT {
		t.Fatalf("never saw a thread of the run at RT priority; stderr: %s", errb.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit status %d, want %d; stderr: %s", code, exitInterrupted, errb.String())
	}
	out, err := exec.Command("ps", "-eLo", "pid=,rtprio=").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == strconv.Itoa(cmd.Process.Pid) && f[1] != "-" {
			t.Errorf("a thread of the interrupted run is still at rtprio %s", f[1])
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("left %s behind", entries[0].Name())
	}
}
