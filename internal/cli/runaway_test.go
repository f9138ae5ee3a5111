//go:build linux && cgo

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/longtest"
)

// The runaway plugins (internal/plugin/testdata): a lock that hangs in
// lock's C-thread row, a park that hangs in latency (from Go threads and
// in the C ping-pong), a lock that crashes, a parker that returns without
// a token. Each run is a real process (the test binary as parkbench,
// PARKBENCH_AS_MAIN): a hang ends it. With -v each prints its command,
// exit status and wall time, the figures the closing note of the runaway
// issue asks for:
//
//	go test -run Runaway -v ./internal/cli
//
// The bounds below are liveness bounds for a loaded machine, not timings.

// testPlugin builds internal/plugin/testdata/name.c into t.TempDir.
func testPlugin(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "plugin", "testdata", name+".c"))
	if err != nil {
		t.Fatal(err)
	}
	return buildPlugin(t, string(src))
}

// runaway is one parkbench process and what it did.
type runaway struct {
	code    int
	stderr  string
	elapsed time.Duration // start to exit, or signal to exit when one was sent
	wrote   bool          // the --out file exists
}

// runParkbench runs parkbench args in a process with env added, writing
// --out into a temporary folder. With sig set it waits for the file mark
// (which the plugin creates as it hangs) and then sends sig; elapsed is
// then from the signal to the exit.
func runParkbench(t *testing.T, env []string, mark string, sig syscall.Signal, args ...string) runaway {
	t.Helper()
	out := filepath.Join(tempDir(t), "r.json")
	cmd := exec.Command(os.Args[0], append(args, "--out", out)...)
	cmd.Env = append(append(os.Environ(), "PARKBENCH_AS_MAIN=1"), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	const bound = 3 * time.Minute
	if sig != 0 {
		for {
			if _, err := os.Stat(mark); err == nil {
				break
			}
			select {
			case <-done:
				t.Fatalf("parkbench %s ended before the plugin hung: stderr %s", strings.Join(args, " "), errb.String())
			case <-time.After(20 * time.Millisecond):
			}
			if time.Since(start) > bound {
				_ = cmd.Process.Kill()
				t.Fatalf("the plugin did not hang within %v", bound)
			}
		}
		start = time.Now()
		_ = cmd.Process.Signal(sig)
	}
	select {
	case <-done:
	case <-time.After(bound):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("parkbench %s did not end within %v; stderr: %s", strings.Join(args, " "), bound, errb.String())
	}
	r := runaway{code: cmd.ProcessState.ExitCode(), stderr: errb.String(), elapsed: time.Since(start)}
	_, err := os.Stat(out)
	r.wrote = err == nil
	how := "exit"
	if sig != 0 {
		how = sig.String() + " after the hang, exit"
	}
	t.Logf("%s parkbench %s: %s %d in %.2f s", strings.Join(env, " "), strings.Join(args, " "), how, r.code, r.elapsed.Seconds())
	return r
}

// A hung call ends the run with status 1 and a message naming the
// implementation, its library and the call, within the watchdog's limit
// (PARKBENCH_WATCHDOG=2s here; 30 s by default); nothing is written.
func TestRunawayHangStopped(t *testing.T) {
	longtest.Skip(t) // a real run under the watchdog, end to end: .ci/run's long tests
	lock, park := testPlugin(t, "hang_lock"), testPlugin(t, "hang_park")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"lock", "--quick", "--impl=c-hang-lock", "--threads=2", "--plugin", lock},
			[]string{`implementation "hang-lock" (` + lock + `) has been in lock's C-thread loop`}},
		{[]string{"lock", "--quick", "--impl=hang-lock", "--threads=2", "--plugin", lock},
			[]string{`implementation "hang-lock" (` + lock + `) has been in lock for 2s`}},
		{[]string{"latency", "--quick", "--impl=hang-park", "--plugin", park},
			[]string{`implementation "hang-park" (` + park + `) has been in park for 2s`}},
		{[]string{"latency", "--quick", "--impl=c-hang-park", "--plugin", park},
			[]string{`implementation "hang-park" (` + park + `) has been in the C ping-pong`}},
	} {
		t.Run(tc.args[2], func(t *testing.T) {
			r := runParkbench(t, []string{"PARKBENCH_WATCHDOG=2s", "PBTEST_HANG_AFTER=5000"}, "", 0, tc.args...)
			if r.code != exitFailed {
				t.Errorf("exit %d, want %d; stderr: %s", r.code, exitFailed, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
			if r.wrote {
				t.Errorf("a result file was written")
			}
		})
	}
}

// SIGTERM (and SIGINT) while a foreign call hangs ends the run with status
// 130 and nothing written, long before the watchdog (60 s here) would.
func TestRunawaySignalWhileHung(t *testing.T) {
	longtest.Skip(t) // a real run under the watchdog, end to end: .ci/run's long tests
	lock, park := testPlugin(t, "hang_lock"), testPlugin(t, "hang_park")
	for _, tc := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGTERM, []string{"lock", "--quick", "--impl=c-hang-lock", "--threads=2", "--plugin", lock}},
		{syscall.SIGINT, []string{"lock", "--quick", "--impl=c-hang-lock", "--threads=2", "--plugin", lock}},
		{syscall.SIGTERM, []string{"latency", "--quick", "--impl=hang-park", "--plugin", park}},
		{syscall.SIGTERM, []string{"latency", "--quick", "--impl=c-hang-park", "--plugin", park}},
	} {
		t.Run(tc.sig.String()+"/"+tc.args[2], func(t *testing.T) {
			mark := filepath.Join(t.TempDir(), "hung")
			r := runParkbench(t, []string{"PARKBENCH_WATCHDOG=60s", "PBTEST_HANG_AFTER=5000", "PBTEST_HANG_MARK=" + mark}, mark, tc.sig, tc.args...)
			if r.code != exitInterrupted || !strings.Contains(r.stderr, "interrupted; no result written") {
				t.Errorf("exit %d, want %d and 'interrupted'; stderr: %s", r.code, exitInterrupted, r.stderr)
			}
			if r.wrote {
				t.Errorf("a result file was written")
			}
			if strings.Contains(r.stderr, "watchdog") {
				t.Errorf("the watchdog ended it, not the signal: %s", r.stderr)
			}
		})
	}
}

// A crash in a library's code names the implementation, the library and
// the call in the first line of stderr, before Go's report of the signal.
func TestRunawayCrashNamed(t *testing.T) {
	longtest.Skip(t) // a real run under the watchdog, end to end: .ci/run's long tests
	so := testPlugin(t, "crash")
	for _, tc := range []struct{ impl, call string }{
		{"c-crash-lock", "lock's C-thread loop"},
		{"crash-lock", "in lock ("},
	} {
		t.Run(tc.impl, func(t *testing.T) {
			r := runParkbench(t, nil, "", 0, "lock", "--quick", "--impl="+tc.impl, "--threads=2", "--plugin", so)
			first, _, _ := strings.Cut(strings.TrimLeft(r.stderr, "\n"), "\n")
			want := `parkbench: crash: SIGSEGV in implementation "crash-lock" of library ` + so
			if r.code == 0 || !strings.HasPrefix(first, want) || !strings.Contains(first, tc.call) {
				t.Errorf("exit %d, first line of stderr %q; want a failure and %q ... %q", r.code, first, want, tc.call)
			}
			if r.wrote {
				t.Errorf("a result file was written")
			}
		})
	}
}

// A parker that returns without a token fails its conformance check; the
// library's mutex still runs in lock, with a note saying why the parker
// does not, and naming the parker is refused with the reason.
func TestRunawayTokenlessParkerOnly(t *testing.T) {
	longtest.Skip(t) // a real run under the watchdog, end to end: .ci/run's long tests
	so := testPlugin(t, "tokenless")
	r := runParkbench(t, nil, "", 0, "lock", "--quick", "--impl=tokenless-mutex,c-tokenless-mutex", "--threads=2", "--plugin", so)
	msg := strings.ReplaceAll(r.stderr, "\n    ", " ")
	if r.code != 0 || !r.wrote {
		t.Fatalf("lock with the library's mutex: exit %d (wrote %v); stderr: %s", r.code, r.wrote, r.stderr)
	}
	if !strings.Contains(msg, `the parker of implementation "tokenless" failed the conformance check`) || !strings.Contains(msg, "without a token") {
		t.Errorf("no note on the refused parker: %s", msg)
	}
	r = runParkbench(t, nil, "", 0, "latency", "--quick", "--impl=tokenless", "--plugin", so)
	msg = strings.ReplaceAll(r.stderr, "\n    ", " ")
	if r.code != exitUsage || !strings.Contains(msg, `implementation "tokenless" is not available here: its parker failed the conformance check`) {
		t.Errorf("latency --impl=tokenless: exit %d; stderr: %s", r.code, msg)
	}
}

// One library named two ways (its absolute path in PARKBENCH_PLUGIN and
// ./lib.so with --plugin) is one library, not a duplicate of itself.
func TestPluginNamedTwoWays(t *testing.T) {
	so := examplePlugin(t)
	t.Chdir(filepath.Dir(so))
	t.Setenv("PARKBENCH_PLUGIN", so)
	var out, errb bytes.Buffer
	if code := executeTo([]string{"list", "--plugin", "./" + filepath.Base(so)}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "\n  mine-futex ") {
		t.Errorf("list does not show the library's mine-futex")
	}
}

// The goroutine-only built-ins are listed and their names reserved.
func TestGoroutineOnlyNamesReserved(t *testing.T) {
	var out, errb bytes.Buffer
	if code := executeTo([]string{"list"}, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d: %s", code, errb.String())
	}
	listed := out.String()
	for _, name := range []string{"mutex-sema", "rwmutex-sema", "waitgroup"} {
		if !strings.Contains(listed, "\n  "+name+" ") {
			t.Errorf("list does not show %s", name)
		}
		so := mutexPlugin(t, name, "takes a built-in's name")
		out.Reset()
		errb.Reset()
		code := executeTo([]string{"list", "--plugin", so}, &out, &errb)
		msg := strings.ReplaceAll(errb.String(), "\n    ", " ")
		if code != exitUsage || !strings.Contains(msg, `has a built-in implementation's name`) {
			t.Errorf("a plugin named %s: exit %d, stderr %q; want %d and a refusal", name, code, errb.String(), exitUsage)
		}
	}
}
