package bench_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/parkbench/parkbench/bench"
	"github.com/parkbench/parkbench/internal/cli"
)

// A Go program's lock with its condvar (a sync.Mutex and its sync.Cond) is
// Go code: herd runs it between plain goroutines, as lock does, where a
// plugin's (C) mutex is refused.
func TestGoLockRunsOnGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a measurement")
	}
	if err := bench.Register(bench.Impl{Name: "go-cond", Summary: "sync.Mutex and sync.Cond", Sleeps: true,
		NewLock: func() sync.Locker { return new(sync.Mutex) },
		NewCond: func(l sync.Locker) bench.Cond { return sync.NewCond(l) }}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"herd", "--quick", "--participants=goroutines", "--impl=go-cond", "--waiters=1,4", "--repeats=1"},
		{"lock", "--quick", "--participants=goroutines", "--impl=go-cond", "--threads=2"},
	} {
		out := filepath.Join(t.TempDir(), "r.json")
		var stdout, stderr bytes.Buffer
		if code := cli.MainTo(append(args, "--out", out, "--quiet"), &stdout, &stderr); code != 0 {
			t.Errorf("parkbench %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
			continue
		}
		data, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(data), `"go-cond/goroutines`) {
			t.Errorf("parkbench %s: no go-cond/goroutines configuration in the result (%v)", strings.Join(args, " "), err)
		}
	}
}
