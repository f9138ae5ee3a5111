package cli

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockBadInput: every bad lock flag exits 2 naming the flag, with
// nothing on stdout.
func TestLockBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the message
	}{
		{[]string{"--threads=0"}, "--threads"},
		{[]string{"--threads=-2"}, "--threads"},
		{[]string{"--threads=2,x"}, "--threads"},
		{[]string{"--threads=100000"}, "--threads"},
		{[]string{"--duration=0s"}, "--duration"},
		{[]string{"--duration=-1s"}, "--duration"},
		{[]string{"--repeats=0"}, "--repeats"},
		{[]string{"--repeats=-1"}, "--repeats"},
		{[]string{"--locks=0"}, "--locks"},
		{[]string{"--locks=1000000"}, "--locks"},
		{[]string{"--work-in=-5ns"}, "--work-in"},
		{[]string{"--work-between=soon"}, "--work-between"},
		{[]string{"--hold-sleep=-1us"}, "--hold-sleep"},
		{[]string{"--impl=nosuch"}, "valid names"},
		{[]string{"--impl="}, "--impl"},
		{[]string{"--lot-parker=nosuch"}, "--lot-parker"},
		{[]string{"--lockskew", "--hold-sleep=1ms"}, "--lockskew"},
		{[]string{"--quick", "--threads=0"}, "--threads"},
		{[]string{"--rwlock", "--readers=-1"}, "--readers"},
		{[]string{"--rwlock", "--quick", "--writers=x"}, "--writers"},
		{[]string{"--rwlock", "--readers=0", "--writers=0"}, "--writers"},
		{[]string{"--rwlock", "--impl=spin"}, "valid names"},
		{[]string{"--rwlock", "--hold-sleep=1ms"}, "--hold-sleep"},
		{[]string{"--rwlock", "--threads=2"}, "unknown flag: --threads"},
		{[]string{"--readers=2"}, "unknown flag: --readers"},
		{[]string{"--rwlock", "--impl="}, "--impl"},
	} {
		var out, errb bytes.Buffer
		code := executeTo(append([]string{"lock"}, tc.args...), &out, &errb)
		name := strings.Join(tc.args, " ")
		if code != exitUsage {
			t.Errorf("lock %s: exit %d, want %d (%s)", name, code, exitUsage, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("lock %s: wrote to stdout: %q", name, out.String())
		}
		if !strings.Contains(errb.String(), tc.want) || strings.Contains(errb.String(), "panic") {
			t.Errorf("lock %s: message %q does not name %s", name, errb.String(), tc.want)
		}
	}
}

// TestLockRunWrites runs a tiny lock measurement end to end and writes a
// result file that reads back.
func TestLockRunWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	out := filepath.Join(tempDir(t), "lock.json")
	var stdout, errb bytes.Buffer
	code := executeTo([]string{"lock", "--impl=lot,sync", "--threads=2", "--work-in=0", "--work-between=0", "--duration=20ms", "--repeats=1", "--out", out}, &stdout, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(stdout.String(), "every row: in=0s/between=0s/locks=1/t=2") || !strings.Contains(stdout.String(), "│ lot ") {
		t.Errorf("table lacks the lot configuration:\n%s", stdout.String())
	}
	var rep bytes.Buffer
	if code := executeTo([]string{"report", out}, &rep, &errb); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb.String())
	}
}

// TestLockInterrupt: SIGINT during a lock run exits 130 and writes nothing.
func TestLockInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a measurement")
	}
	interrupt(t, syscall.SIGINT, 3*time.Second, 90*time.Second, "lock", "--impl=lot,c-pthread", "--threads=2", "--duration=2s", "--repeats=50", "--quiet")
}

// "lock --rwlock" is the rwlock command, wherever --rwlock stands.
func TestRwlockAlias(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"lock", "--rwlock", "--quick"}, []string{"rwlock", "--quick"}},
		{[]string{"lock", "--quick", "--rwlock=true", "-o", "x"}, []string{"rwlock", "--quick", "-o", "x"}},
		{[]string{"lock", "--rwlock=false"}, []string{"lock", "--rwlock=false"}},
		{[]string{"lock", "--", "--rwlock"}, []string{"lock", "--", "--rwlock"}},
		{[]string{"herd", "--rwlock"}, []string{"herd", "--rwlock"}},
	} {
		if got := rwlockAlias(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("rwlockAlias(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// rwlock measures (a plugin's parkers are checked before it runs, as
// before under lock --rwlock); list does not.
func TestRwlockMeasures(t *testing.T) {
	if !measuring("rwlock") || !measuring("lock") || !measuring("run") || measuring("list") {
		t.Errorf("measuring: rwlock %v lock %v run %v list %v", measuring("rwlock"), measuring("lock"), measuring("run"), measuring("list"))
	}
}
