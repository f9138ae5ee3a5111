package inversion

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/results"
)

// rtThreads lists the threads of this process not at SCHED_OTHER.
func rtThreads(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		tid, _ := strconv.Atoi(e.Name())
		a, err := unix.SchedGetAttr(tid, 0)
		if err == nil && a.Policy != schedOther {
			out = append(out, e.Name()+" policy "+strconv.Itoa(int(a.Policy)))
		}
	}
	return out
}

// narrowed lists the threads of this process whose CPU mask is narrower
// than want CPUs, waiting up to 2 s for the run's own pinned threads
// (retired when their goroutine exits locked) to be gone. The main thread
// is left out: when a locked goroutine that pinned itself happens to run
// on it, the runtime cannot retire it and parks it for good instead
// (runtime.mexit, "This is the main thread. Just wedge it."), mask and
// all, and no goroutine runs there again.
func narrowed(t *testing.T, want int) []string {
	t.Helper()
	var out []string
	for try := 0; try < 20; try++ {
		out = out[:0]
		for _, tid := range tids() {
			if tid == os.Getpid() {
				continue
			}
			var set unix.CPUSet
			if unix.SchedGetaffinity(tid, &set) == nil && set.Count() < want {
				out = append(out, strconv.Itoa(tid)+" on "+strconv.Itoa(set.Count())+" CPUs"+" CPUs")
			}
		}
		if len(out) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return out
}

func runnable(t *testing.T) {
	if w := hostWhy(false); w != "" {
		t.Skip(w)
	}
}

// TestRunRestores: a short run on this machine has the structure
// expected, and leaves no thread of the process at RT priority or with a
// narrowed CPU mask, whether it completes or is interrupted mid-run (a
// thread born during a run once kept the moved mask, and the next run
// refused: "only 1 usable CPU"). No timing threshold: the figures
// are not judged here.
func TestRunRestores(t *testing.T) {
	runnable(t)
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	o := Options{Impls: []string{"pi-futex", "std-futex"}, Hold: 20 * time.Microsecond, Medium: time.Millisecond, Repeats: 5}
	exp := drivertest.Run(t, Run, o)
	if len(exp.Configs) != 2 || exp.Options[MCritical] != "20000" {
		t.Fatalf("configs %d, options %v", len(exp.Configs), exp.Options)
	}
	for _, c := range exp.Configs {
		if c.Summary[results.MSamples] != 5 || c.Summary[results.MMin] <= 0 {
			t.Errorf("%s: %v", c.Key, c.Summary)
		}
	}
	if rt := rtThreads(t); len(rt) > 0 {
		t.Errorf("threads left at RT priority after the run: %v", rt)
	}
	if n := narrowed(t, all.Count()); len(n) > 0 {
		t.Errorf("threads left with a narrowed CPU mask after the run: %v", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	o.Repeats, o.Medium = 1000, 5*time.Millisecond
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := Run(ctx, o, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v, want context.Canceled", err)
	}
	if rt := rtThreads(t); len(rt) > 0 {
		t.Errorf("threads left at RT priority after an interrupt: %v", rt)
	}
	if n := narrowed(t, all.Count()); len(n) > 0 {
		t.Errorf("threads left with a narrowed CPU mask after an interrupt: %v", n)
	}
}
