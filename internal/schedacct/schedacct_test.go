package schedacct

import (
	"runtime"
	"testing"
	"time"
)

// TestTraceCountsGosched: the trace sees each runtime.Gosched of fn.
func TestTraceCountsGosched(t *testing.T) {
	c, err := Trace(func() error {
		for i := 0; i < 10; i++ {
			runtime.Gosched()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Yields < 10 {
		t.Errorf("Yields = %d, want >= 10", c.Yields)
	}
}

// TestTraceTwice: a second trace inside the first is refused, not nested.
func TestTraceTwice(t *testing.T) {
	_, err := Trace(func() error {
		_, err := Trace(func() error { return nil })
		if err == nil {
			t.Error("nested Trace: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSince(t *testing.T) {
	old := Snapshot{1: 10, 2: 20, 3: 30, 4: 40}
	now := Snapshot{1: 15, 2: 21, 3: 33, 5: 7} // 4 exited, 5 appeared
	b := now.Since(old, []int{1}, 2)
	if b != (Breakdown{Participants: 5, Sysmon: 1, Other: 3 + 7}) {
		t.Errorf("Since = %+v", b)
	}
}

// TestFindSysmon: on Linux, sysmon is found, it is not this thread's, and
// it switches while the process is busy.
func TestFindSysmon(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	tid := FindSysmon(nil)
	if tid == 0 {
		t.Fatal("sysmon not found")
	}
	n0, err := ThreadSwitches(tid)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline); {
	}
	n1, _ := ThreadSwitches(tid)
	if n1 <= n0 {
		t.Errorf("sysmon (thread %d) did not switch in 200 ms of a busy process: %d -> %d", tid, n0, n1)
	}
}
