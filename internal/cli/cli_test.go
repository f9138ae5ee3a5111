package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/spin"
	"github.com/parkbench/parkbench/internal/experiments/timeout"
	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/parkers"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestMain lets the test binary act as parkbench itself (for the signal
// test, which needs a real process to interrupt).
func TestMain(m *testing.M) {
	if os.Getenv("PARKBENCH_AS_MAIN") == "1" {
		os.Exit(execute(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// badInputs is every flag of every command given a value it must refuse.
// Each must exit 2 with a message that says what is allowed, print nothing
// on stdout and never panic. The messages are kept in a golden file so a
// change to one is a reviewed change.
var badInputs = [][]string{
	{"bogus"},
	{"list", "extra"},
	{"--nosuchflag"},
	// latency
	{"latency", "--impl=nosuch"},
	// latency --impl=<a name unavailable here> is added by TestBadInput:
	// which one depends on the OS (see unavailableImpl).
	{"latency", "--impl=wasm"},
	{"latency", "--placement=sideways"},
	{"latency", "--iterations=0"},
	{"latency", "--iterations=-5"},
	{"latency", "--iterations=100000000000"},
	{"latency", "--warmup=-1"},
	{"latency", "--rounds=0"},
	{"latency", "--rounds=abc"},
	{"latency", "--rounds=99999999999999999999"},
	{"latency", "--iterations=-99999999999999999999"},
	{"latency", "--gomaxprocs=0"},
	{"latency", "--gomaxprocs=257"},
	{"latency", "--gomaxprocs=1,x"},
	{"latency", "--participants=fibers"},
	{"latency", "--participants=goroutines", "--impl=spin"},
	{"latency", "--impl=waitgroup"},
	{"lock", "--participants=fibers"},
	{"herd", "--participants=fibers"},
	{"lock", "--gomaxprocs=300"},
	{"latency", "--gap=-1ms"},
	{"latency", "--gap=soon"},
	{"latency", "--lot-parker=nosuch"},
	{"latency", "--format=xml"},
	{"latency", "--out=/nonexistent-dir/x.json"},
	{"latency", "--out=testdata"},
	// selfwake
	{"selfwake", "--impl=nosuch"},
	{"selfwake", "--pairs=0"},
	{"selfwake", "--samples=-1"},
	{"selfwake", "--rounds=0"},
	{"selfwake", "--format=yaml"},
	// herd
	{"herd", "--impl=nosuch"},
	{"herd", "--waiters=0"},
	{"herd", "--waiters=5000"},
	{"herd", "--waiters=4,x"},
	{"herd", "--waiters=99999999999999999999"},
	{"herd", "--waiters", "4", "8"},
	{"herd", "--hold=-1us"},
	{"herd", "--notify=some"},
	{"herd", "--lock-held=maybe"},
	{"herd", "--repeats=0"},
	{"herd", "--placement=moon"},
	{"herd", "--mode=lazy"},
	{"herd", "--mode=idle", "--requests=0"},
	{"herd", "--mode=idle", "--notify=one-loop"},
	// timeout
	{"timeout", "--impl=nosuch"},
	{"timeout", "--deadlines=0"},
	{"timeout", "--deadlines=-1ms"},
	{"timeout", "--deadlines=1h"},
	{"timeout", "--samples=0"},
	{"timeout", "--timerslack=fast"},
	// wake
	{"wake", "--threads=0"},
	{"wake", "--bench=foo"},
	{"wake", "--bench=wake-parallel", "--threads=4", "--wakers=3"},
	{"wake", "--impl=nosuch"},
	{"wake", "--bench=hash", "--impl=sync"},
	{"wake", "--settle=1h"},
	{"wake", "--format=xml"},
	// loaded
	{"loaded", "--loads=0"},
	{"loaded", "--loads=50,10"},
	{"loaded", "--arrival=poisson"},
	{"loaded", "--oversubscribe=100"},
	{"loaded", "--work=0"},
	{"loaded", "--arrival=burst", "--duration=100ms"},
	// spin
	{"spin", "--budgets=-1us"},
	{"spin", "--budgets=soon"},
	{"spin", "--budgets=1s"},
	{"spin", "--budgets=4us,4000ns"},
	{"spin", "--gaps=-1ms"},
	{"spin", "--gaps=later"},
	{"spin", "--gaps=1s"},
	{"spin", "--gaps=100ms", "--waits=10000"},
	{"spin", "--waits=0"},
	{"spin", "--placement=moon"},
	{"spin", "--impl=nosuch"},
	// stacks
	{"stacks", "--format=xml"},
	// inversion (bounds are checked before the host)
	{"inversion", "--hold=0"},
	{"inversion", "--hold=1s"},
	{"inversion", "--medium=10us"},
	{"inversion", "--medium=1s"},
	{"inversion", "--repeats=0"},
	{"inversion", "--repeats=100000"},
	// run
	{"run", "--format=xml"},
	{"run", "extra"},
	{"run", "--record=/nonexistent-dir/results", "--quick", "--quiet"},
	{"run", "--full", "--quick"},
	// report / compare / plot
	{"report"},
	{"report", "testdata/does-not-exist.json"},
	{"report", "testdata/not-a-result.json"},
	{"report", "testdata"},
	{"report", "--format=xml", "testdata/not-a-result.json"},
	// ab (binaries that are not parkbench: ab_test.go)
	{"ab"},
	{"ab", "only-one"},
	{"ab", "--trials=3", "a", "b"},
	{"ab", "--trials=99999999999999999999", "a", "b"},
	{"ab", "--max-trials=2", "a", "b"},
	{"ab", "--alpha=0", "a", "b"},
	{"ab", "--min-effect=much", "a", "b"},
	{"ab", "--format=xml", "a", "b"},
	{"ab", "--trial-timeout=0s", "a", "b"},
	// trend
	{"trend"},
	{"trend", "/nonexistent-dir"},
	{"trend", "testdata/not-a-result.json"},
	{"trend", "--p=0", "testdata"},
	{"trend", "--min-change=big", "testdata"},
	{"trend", "--format=csv", "testdata"},
	{"trend", "--machine=nosuch", "testdata"},
	{"compare"},
	{"compare", "testdata/not-a-result.json"},
	{"compare", "testdata/not-a-result.json", "testdata/not-a-result.json"},
	{"compare", "--threshold=-3", "a.json", "b.json"},
	{"plot", "testdata/not-a-result.json"},
	{"plot", "--out=x.gif", "testdata/not-a-result.json"},
	{"completion", "tcsh"},
}

// tmpPath hides temporary directories in messages.
var tmpPath = regexp.MustCompile(`/tmp/[^ :"]+`)

// unavailableImpl is a latency implementation that exists but does not run
// on this OS and build ("" if every one runs), never one that is only
// "never run" (wasm, which has its own case).
func unavailableImpl() (name, why string) {
	for _, im := range latency.Impls() {
		if im.Why != "" && im.Name != parkers.NameWasm {
			return im.Name, im.Why
		}
	}
	return "", ""
}

// normalise makes a bad-input message the same on every OS: the lists of
// names that depend on the OS, and the unavailable implementation, become
// placeholders.
func normalise(msg, unavail, why string) string {
	for _, r := range []struct {
		list []string
		name string
	}{
		{latency.ImplNames(), "<latency impls>"},
		{timeout.ImplNames(), "<timeout impls>"},
		{herd.ImplNames(), "<herd impls>"},
		{wake.ImplNames(), "<wake impls>"},
		{spin.ImplNames(), "<spin impls>"},
		{parkers.Names(), "<parkers>"},
	} {
		msg = strings.ReplaceAll(msg, strings.Join(r.list, ", "), r.name)
	}
	if unavail != "" {
		msg = strings.ReplaceAll(msg, why, "<why>")
		// Only the name as a name (quoted, or the flag's value): the
		// messages' examples name futex too, unavailable on Windows.
		msg = strings.ReplaceAll(msg, `"`+unavail+`"`, `"<unavailable here>"`)
		if strings.HasSuffix(msg, "--impl="+unavail) {
			msg = strings.TrimSuffix(msg, unavail) + "<unavailable here>"
		}
	}
	return msg
}

func TestBadInput(t *testing.T) {
	var golden bytes.Buffer
	inputs := badInputs
	unavail, why := unavailableImpl()
	if unavail != "" {
		inputs = append(slices.Clone(inputs), []string{"latency", "--impl=" + unavail})
	}
	for _, args := range inputs {
		var out, errb bytes.Buffer
		code := executeTo(args, &out, &errb)
		// The golden holds each message as one line: stderr wraps it at
		// textfmt.Columns (TestHelpWidth), where depends on the names of
		// this OS.
		unwrapped := strings.ReplaceAll(errb.String(), "\n    ", " ")
		msg := normalise(strings.TrimSpace(tmpPath.ReplaceAllString(unwrapped, "/tmp/...")), unavail, why)
		name := normalise(strings.Join(args, " "), unavail, why)
		if code != exitUsage {
			t.Errorf("parkbench %s: exit status %d, want %d (stderr: %s)", name, code, exitUsage, msg)
		}
		if out.Len() != 0 {
			t.Errorf("parkbench %s: wrote to stdout on bad input: %q", name, out.String())
		}
		if msg == "" {
			t.Errorf("parkbench %s: no message on stderr", name)
		}
		if strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine ") {
			t.Errorf("parkbench %s: panicked: %s", name, msg)
		}
		golden.WriteString("$ parkbench " + name + "\n" + msg + "\n\n")
	}
	if unavail == "" {
		t.Log("every latency implementation runs here: the unavailable-implementation case is written as expected")
		golden.WriteString("$ parkbench latency --impl=<unavailable here>\nparkbench: implementation \"<unavailable here>\" is not available here: <why>\n\n")
	}
	path := filepath.Join("testdata", "badinput.golden")
	if *update {
		if err := os.WriteFile(path, golden.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -run TestBadInput -update)", err)
	}
	if got := asLinuxWords(t, golden.String()); string(want) != got {
		t.Errorf("bad-input messages changed (%s); diff testdata/badinput.golden against:\n%s", firstLineDiff(string(want), got), golden.String())
	}
}

// TestInterrupt sends SIGINT to a running latency measurement: it must stop
// promptly with exit status 130, say it was interrupted, and leave no
// --out file (nor a temporary one) behind.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a measurement")
	}
	impls := []string{sleeper(t)}
	// The C reference's round runs in C threads that never see Go's signal
	// handling: an interrupt once waited for the whole round (65 s).
	for _, im := range latency.Impls() {
		if im.Name == "c-futex" && im.Why == "" {
			impls = append(impls, im.Name)
		}
	}
	for i, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGINT, syscall.SIGTERM} {
		impl := impls[i%len(impls)]
		if i >= 2 && len(impls) == 1 {
			break
		}
		interrupt(t, sig, 1500*time.Millisecond, 60*time.Second, "latency", "--impl="+impl, "--placement=cross-core,unpinned", "--iterations=1000000", "--rounds=1", "--quiet")
	}
}

// interrupt runs parkbench args --out FILE as its own process, sends sig
// after wait and checks that it stops within limit with exit status 130,
// says it was interrupted, and leaves no --out file (nor a temporary one)
// behind.
func interrupt(t *testing.T, sig syscall.Signal, wait, limit time.Duration, args ...string) {
	t.Helper()
	// A signal that arrives before parkbench installs its handler kills
	// the process the default way (the test binary starts slowly under
	// -race on a loaded machine): that start is tried again, waiting twice
	// as long, up to three times. A handler never installed fails all three.
	for attempt := 1; ; attempt++ {
		if interruptOnce(t, sig, wait, limit, attempt == 3, args...) {
			return
		}
		t.Logf("%v during parkbench %v: sent before the handler was installed (after %v); again", sig, args, wait)
		wait *= 2
	}
}

// interruptOnce is one try of interrupt; it returns false, having checked
// nothing, when the process died of the signal itself and last is false.
func interruptOnce(t *testing.T, sig syscall.Signal, wait, limit time.Duration, last bool, args ...string) bool {
	t.Helper()
	dir := tempDir(t)
	cmd := exec.Command(os.Args[0], append(args, "--out", filepath.Join(dir, "r.json"))...)
	cmd.Env = append(os.Environ(), "PARKBENCH_AS_MAIN=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		t.Fatalf("%v during parkbench %v: it did not stop within %v", sig, args, limit)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && errb.Len() == 0 && !last {
		return false
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("%v during parkbench %v: exit status %d, want %d; stderr: %s", sig, args, code, exitInterrupted, errb.String())
	}
	if !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("%v: stderr does not say interrupted: %s", sig, errb.String())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("%v: left %s behind", sig, e.Name())
	}
	return true
}

// TestOneCPU: with one CPU (taskset -c 0), latency --quick runs instead of
// refusing, skips the busy-wait implementations and says why.
func TestOneCPU(t *testing.T) {
	out := runOnOneCPU(t, "latency", "--quick", "--iterations=200", "--warmup=20", "--rounds=1")
	if !strings.Contains(out, "one CPU only") || !strings.Contains(out, "unpinned not run for the busy-waiting spin") {
		t.Fatalf("the output does not say that one CPU was used and spin skipped:\n%s", out)
	}
}

// runOnOneCPU runs parkbench args under taskset -c 0 (one CPU) and
// returns its output, failing the test if it fails; it skips under -short
// (it measures) and without taskset.
func runOnOneCPU(t *testing.T, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a measurement")
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("needs taskset (util-linux)")
	}
	cmd := exec.Command(taskset, append([]string{"-c", "0", os.Args[0]}, args...)...)
	cmd.Env = append(os.Environ(), "PARKBENCH_AS_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("taskset -c 0 parkbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// sleeper is a sleeping thread parker that runs here (futex on Linux), or
// skips the test saying none does.
func sleeper(t *testing.T) string {
	t.Helper()
	n := latency.FirstAvailable("futex", "pthread", "waitonaddress", "keyedevent")
	if n == "" {
		t.Skip("no sleeping thread parker runs here")
	}
	return n
}

// firstLineDiff names the first line where want and got differ, so a
// golden mismatch on another OS (where -update cannot run) says what moved.
func firstLineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, a, b)
		}
	}
	return "no line differs"
}
