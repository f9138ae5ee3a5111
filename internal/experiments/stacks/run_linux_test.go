//go:build linux

package stacks

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/parkers"
)

func TestRunStacks(t *testing.T) {
	before := lot.CurrentBackend().Name
	exp := drivertest.Run(t, Run, DefaultOptions())
	if after := lot.CurrentBackend().Name; after != before {
		t.Errorf("lot backend left at %q, was %q", after, before)
	}
	byName := map[string]map[string]string{}
	for _, c := range exp.Configs {
		byName[c.Impl] = c.Detail
		for _, w := range c.Warnings {
			t.Errorf("%s: %s", c.Key, w)
		}
	}
	for _, w := range exp.Warnings {
		if !strings.Contains(w, "pthread") { // pthread needs cgo
			t.Errorf("warning: %s", w)
		}
	}
	for name, want := range map[string]struct{ op, val, match string }{
		StackFutex:      {"FUTEX_WAIT_PRIVATE", "1", "futex parker.state"},
		StackStd:        {"FUTEX_WAIT_BITSET_PRIVATE", "-1", "std parker.state"},
		StackLotMutex:   {"FUTEX_WAIT_PRIVATE", "1", "lot ThreadData parker"},
		StackLotCondvar: {"FUTEX_WAIT_PRIVATE", "1", "lot ThreadData parker"},
		StackCrossbeam:  {"FUTEX_WAIT_BITSET_PRIVATE", "", "cvar"},
	} {
		d := byName[name]
		if d == nil {
			t.Errorf("%s missing", name)
			continue
		}
		if !strings.HasPrefix(d["state"], "S") || d["futex_op"] != want.op || (want.val != "" && d["futex_val"] != want.val) || !strings.Contains(d["matches"], want.match) {
			t.Errorf("%s: state %q op %q val %q matches %q", name, d["state"], d["futex_op"], d["futex_val"], d["matches"])
		}
		if !strings.HasPrefix(d["goroutine_wait"], "syscall") {
			t.Errorf("%s: goroutine wait %q", name, d["goroutine_wait"])
		}
	}
	// The top GoFrames (10) frames: the condvar's wait shows as its
	// innermost Condvar method (waitUntilInternal since lot's park path
	// has its slow lock out of line), not necessarily Wait itself.
	if !strings.Contains(byName[StackLotMutex]["go_stack"], "lot.(*Mutex).lockSlow") || !strings.Contains(byName[StackLotCondvar]["go_stack"], "lot.(*Condvar).") {
		t.Errorf("lot go stacks: %q / %q", byName[StackLotMutex]["go_stack"], byName[StackLotCondvar]["go_stack"])
	}
	if _, err := parkers.Lookup(parkers.NamePthread); err == nil {
		if d := byName[StackPthread]; d == nil || !strings.HasPrefix(d["futex_op"], "FUTEX_WAIT") || !strings.Contains(d["matches"], "pthread parker") {
			t.Errorf("pthread: %v", d)
		}
	}
	for name, want := range map[string]string{
		StackFutexTimed:            "relative timespec",
		StackStdTimed:              "absolute CLOCK_MONOTONIC",
		StackPthreadTimed:          "absolute CLOCK_MONOTONIC",
		StackPthreadWallclockTimed: "absolute CLOCK_REALTIME",
	} {
		d := byName[name]
		if d == nil && strings.HasPrefix(name, "pthread") {
			continue // needs cgo
		}
		if d == nil || !strings.Contains(d["futex_timeout"], want) || !strings.Contains(d["futex_timeout"], "59m") {
			t.Errorf("%s: timeout %q, want %q and the hour", name, d["futex_timeout"], want)
		}
	}
	for _, name := range []string{StackSyncMutex, StackChan} {
		d := byName[name]
		if d == nil || !strings.HasPrefix(d["tid"], "none") || d["goroutine_wait"] == "" || strings.HasPrefix(d["goroutine_wait"], "syscall") {
			t.Errorf("%s: %v", name, d)
		}
	}
	if d := byName[StackSyncMutexLocked]; d == nil || !strings.HasPrefix(d["goroutine_wait"], "sync.Mutex.Lock") || !strings.HasPrefix(d["state"], "S") {
		t.Errorf("sync-mutex-locked: %v", d)
	}
	if d := byName[StackGoRuntime]; d == nil || d["threads"] == "" {
		t.Errorf("go-runtime: %v", d)
	}
	for _, c := range exp.Claims {
		if c.Verdict != "holds" {
			t.Errorf("claim %s: %s (%s)", c.ID, c.Verdict, c.Evidence)
		}
	}
	// Everything was woken and joined: no goroutine is left in the marker.
	deadline := time.Now().Add(5 * time.Second)
	for strings.Contains(allGoroutines(), marker) {
		if time.Now().After(deadline) {
			t.Fatal("a blocked goroutine was not joined")
		}
		runtime.Gosched()
	}
}

func TestRunStacksBadInput(t *testing.T) {
	drivertest.Refused(t, "--mech bogus", Run, Options{Mechanisms: []string{"bogus"}})
	drivertest.Cancelled(t, Run, DefaultOptions())
}

// TestNotMeasured: a figure /proc would not give (not root: the kernel
// stack; the ptrace policy: wchan and syscall) is one warning each, and a
// readable one none. notMeasured is the Linux sampler's (run_linux.go).
func TestNotMeasured(t *testing.T) {
	w := notMeasured(map[string]string{
		"state":        "S (sleeping)",
		"wchan":        "not readable: permission denied",
		"syscall":      "not readable: permission denied",
		"kernel_stack": "not readable (permission denied; needs root or CAP_SYS_ADMIN)",
	})
	if len(w) != 3 || !strings.Contains(strings.Join(w, "|"), "kernel_stack not measured: not readable (permission denied; needs root") {
		t.Errorf("not-measured warnings: %q", w)
	}
	if w := notMeasured(map[string]string{"state": "S (sleeping)", "wchan": "futex_do_wait"}); len(w) != 0 {
		t.Errorf("readable figures marked not measured: %q", w)
	}
}
