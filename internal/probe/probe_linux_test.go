package probe

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// statTicks reads utime+stime after the command name, which may itself
// hold spaces and parentheses.
func TestStatTicks(t *testing.T) {
	b := []byte("123 (a) b (c)) S 1 123 123 0 -1 4194560 100 0 0 0 7 5 0 0 20 0 1 0 50 0 0")
	if got, ok := statTicks(b); !ok || got != 12 {
		t.Errorf("statTicks = %v, %v; want 12, true", got, ok)
	}
	if _, ok := statTicks([]byte("123 (trunc")); ok {
		t.Error("a stat line without its closing parenthesis parsed")
	}
}

// The window counts another process's CPU time and never this one's: a
// child that spins shows up, and this process is not among the others.
func TestForeignCountsOtherProcess(t *testing.T) {
	others, ok := otherTicks()
	if !ok {
		t.Skip("/proc unreadable")
	}
	if _, self := others[os.Getpid()]; self {
		t.Fatal("otherTicks counts this process")
	}
	f := StartForeign()
	// A process started inside the window counts from 0.
	live := exec.Command("/bin/sh", "-c", "while :; do :; done")
	if err := live.Start(); err != nil {
		t.Skip("no /bin/sh to spin in:", err)
	}
	defer live.Process.Kill()
	time.Sleep(300 * time.Millisecond)
	r := f.Stop()
	if r.Fraction <= 0 {
		t.Errorf("a process spinning beside the window: foreign fraction %v, want > 0", r.Fraction)
	}
	live.Process.Kill()
	live.Wait()
}

// A window far shorter than a tick cannot resolve the share: not measured
// (-1), with its length in ticks.
func TestForeignShortWindow(t *testing.T) {
	f := StartForeign()
	got := f.Stop()
	if got.Fraction != -1 || got.WindowTicks >= MinForeignTicks {
		t.Errorf("an immediate stop: fraction %v over %v ticks, want -1 (fewer than %d ticks)", got.Fraction, got.WindowTicks, MinForeignTicks)
	}
}
