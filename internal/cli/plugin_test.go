//go:build linux && cgo

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/longtest"
)

// buildPlugin compiles a C plugin into t.TempDir (skipping without gcc).
func buildPlugin(t *testing.T, src string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the plugin tests build their libraries with gcc")
	}
	dir := t.TempDir()
	c, so := filepath.Join(dir, "p.c"), filepath.Join(dir, "libp.so")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-O2", "-shared", "-fPIC", "-I../../include", "-I../plugin/testdata", "-o", so, c).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return so
}

func examplePlugin(t *testing.T) string {
	src, err := os.ReadFile("../../examples/cplugin/mine.c")
	if err != nil {
		t.Fatal(err)
	}
	return buildPlugin(t, string(src))
}

// The example plugin's implementations are listed and run, from Go threads
// and as C rows, in every experiment their kind fits; the result records
// where they came from.
func TestPluginRunsInExperiments(t *testing.T) {
	longtest.Skip(t) // a real run under the watchdog, end to end: .ci/run's long tests
	so := examplePlugin(t)
	pc := buildPlugin(t, `#include <pthread.h>
#include <stdlib.h>
#include "parkbench.h"
static void *mx_new(void) { pthread_mutex_t *m = malloc(sizeof *m); pthread_mutex_init(m, NULL); return m; }
static void mx_lock(void *m) { pthread_mutex_lock(m); }
static void mx_unlock(void *m) { pthread_mutex_unlock(m); }
static void *cv_new(void) { pthread_cond_t *c = malloc(sizeof *c); pthread_cond_init(c, NULL); return c; }
static void cv_wait(void *c, void *m) { pthread_cond_wait(c, m); }
static int cv_one(void *c) { pthread_cond_signal(c); return -1; }
static int cv_all(void *c) { pthread_cond_broadcast(c); return -1; }
static const struct pb_mutex mx = {mx_new, mx_lock, NULL, mx_unlock, free};
static const struct pb_condvar cv = {cv_new, cv_wait, NULL, cv_one, cv_all, free};
static const struct pb_impl impls[] = {{"pc", "pthread mutex and condvar", 1, NULL, &mx, &cv, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "pc", "example 1.0", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`)
	wantListed(t, so, "mine-futex", "c-mine-futex", "mine-spin", "c-mine-spin")
	dir := t.TempDir()
	for _, args := range [][]string{
		{"latency", "--quick", "--impl=mine-futex,c-mine-futex"},
		{"selfwake", "--quick", "--impl=mine-futex,c-mine-futex,c-mine-futex.fp"},
		{"lock", "--quick", "--impl=mine-spin,c-mine-spin,c-mine-spin.fp", "--threads=2"},
		{"herd", "--quick", "--impl=pc", "--waiters=1,4", "--plugin", pc},
		{"wake", "--quick", "--impl=pc,mine-futex", "--bench=wake,wake-parallel", "--threads=2,4", "--plugin", pc},
	} {
		t.Run(args[0], func(t *testing.T) {
			data := runWithPlugin(t, dir, so, args)
			if !strings.Contains(string(data), `"external.`) || !strings.Contains(string(data), `(mine example 2.0)`) && !strings.Contains(string(data), `(pc example 1.0)`) {
				t.Errorf("the result does not record the plugin and its version")
			}
			// The example owns its loops (ABI version 2): its C rows say
			// which loop ran.
			if args[0] == "selfwake" || args[0] == "lock" {
				for _, want := range []string{`"loop": "own"`, `"loop": "function pointers"`} {
					if !strings.Contains(string(data), want) {
						t.Errorf("the result has no %s", want)
					}
				}
			}
		})
	}
	// The registration ended with the command: a later one without
	// --plugin does not know the names.
	var out, errb bytes.Buffer
	if code := executeTo([]string{"latency", "--impl=mine-futex"}, &out, &errb); code != exitUsage {
		t.Errorf("latency --impl=mine-futex without the plugin: exit %d, want %d", code, exitUsage)
	}
}

// mutexPlugin builds a plugin of one mutex implementation, name with
// summary, whose lock does nothing: for the checks loading a plugin makes
// of its names.
func mutexPlugin(t *testing.T, name, summary string) string {
	t.Helper()
	return buildPlugin(t, `#include <stdlib.h>
#include "parkbench.h"
static void *mk(void) { return calloc(1, 4); }
static void nop(void *m) { (void)m; }
static const struct pb_mutex mx = {mk, nop, NULL, nop, free};
static const struct pb_impl impls[] = {{"`+name+`", "`+summary+`", 0, NULL, &mx, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`)
}

// Every refusal of a plugin is bad input: exit 2, the file named, nothing
// on stdout and no result file.
func TestPluginBadInput(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clash := mutexPlugin(t, "sync", "clashes with Go's sync.Mutex row")
	// A parker that never waits: its timed park says it was unparked when
	// nothing unparked it, which the check sees at once (a lost wakeup,
	// which the check sees only at its time limit, is internal/plugin's
	// TestConformanceRefusesLossyParker).
	lossy := buildPlugin(t, `#include <stdlib.h>
#include "parkbench.h"
static void *mk(void) { return calloc(1, 4); }
static void park(void *p) { (void)p; }
static int park_until(void *p, int64_t d) { (void)p; (void)d; return 1; }
static void nop(void *p) { (void)p; }
static const struct pb_parker pk = {mk, NULL, park, park_until, nop, free};
static const struct pb_impl impls[] = {{"deaf", "never waits", 1, &pk, NULL, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`)
	mine := examplePlugin(t)
	mine2 := filepath.Join(t.TempDir(), "libmine2.so")
	if data, err := os.ReadFile(mine); err != nil || os.WriteFile(mine2, data, 0o755) != nil {
		t.Fatal("copying the example plugin")
	}
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"latency", "--plugin", text}, "", "not a shared library"},
		{[]string{"latency", "--plugin", filepath.Join(dir, "missing.so")}, "", "no such file"},
		{[]string{"latency"}, filepath.Join(dir, "missing.so"), "missing.so"},
		{[]string{"lock", "--plugin", clash}, "", `implementation "sync" has a built-in implementation's name`},
		{[]string{"latency", "--plugin", mine, "--plugin", mine2}, "", `implementation "mine-futex" is also in plugin`},
		// A parker that fails its check is not measured; naming it is
		// refused with the check's reason (its library still loads).
		{[]string{"latency", "--plugin", lossy, "--impl=deaf"}, "", `--impl: implementation "deaf" is not available here: its parker failed the conformance check`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Setenv("PARKBENCH_PLUGIN", tc.env)
			file := filepath.Join(t.TempDir(), "r.json")
			var out, errb bytes.Buffer
			code := executeTo(append(tc.args, "--out", file), &out, &errb)
			msg := strings.ReplaceAll(errb.String(), "\n    ", " ")
			if code != exitUsage || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "-plugin") && !strings.Contains(msg, "--impl") {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, msg, exitUsage, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout: %q", out.String())
			}
			if _, err := os.Stat(file); err == nil {
				t.Errorf("a result file was written on bad input")
			}
		})
	}
}
