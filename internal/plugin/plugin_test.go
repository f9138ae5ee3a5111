//go:build (linux || darwin) && cgo

package plugin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/watch"
)

// TestMain keeps the watchdog from ending the test binary: the lossy and
// hanging parkers' threads stay blocked in C until it exits.
func TestMain(m *testing.M) {
	watch.Set(time.Minute, func(string) {})
	os.Exit(m.Run())
}

// loadAndRegister loads so and registers its implementations as a command
// does (ext.Register checks their names); the registry is reset after t.
func loadAndRegister(t *testing.T, so string) ([]ext.Impl, error) {
	t.Helper()
	libs, err := Load([]string{so})
	if err != nil {
		return nil, err
	}
	t.Cleanup(ext.Reset)
	if err := ext.Register(nil, libs[0].Impls...); err != nil {
		return nil, err
	}
	return ext.All(), nil
}

// buildSO compiles src (C, with include/parkbench.h) into a shared library
// in t.TempDir, skipping the test when there is no gcc.
func buildSO(t testing.TB, src string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the plugin tests build their libraries with gcc")
	}
	dir := t.TempDir()
	c := filepath.Join(dir, "p.c")
	so := filepath.Join(dir, "libp.so")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(gcc, "-O2", "-shared", "-fPIC", "-I../../include", "-Itestdata", "-o", so, c).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return so
}

// prelude is a correct futex-free token parker (a mutex and a condvar:
// testdata/misbehave.h's) and a mutex, for the tables below to use or
// break.
const prelude = `
#include "misbehave.h"
static void *mx_new(void) { pthread_mutex_t *m = malloc(sizeof *m); pthread_mutex_init(m, NULL); return m; }
static void mx_lock(void *m) { pthread_mutex_lock(m); }
static void mx_unlock(void *m) { pthread_mutex_unlock(m); }
`

func lib(body string) string { return prelude + body }

const goodTable = `
static const struct pb_parker pk = {tp_new, NULL, tp_park, tp_park_until, tp_unpark, tp_free};
static const struct pb_mutex mx = {mx_new, mx_lock, NULL, mx_unlock, free};
static const struct pb_impl impls[] = {
	{"t-park", "a condvar token parker", 1, &pk, NULL, NULL, NULL},
	{"t-mutex", "pthread mutex", 1, NULL, &mx, NULL, NULL},
};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "t 0.1", 2, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
`

func TestLoadGood(t *testing.T) {
	so := buildSO(t, lib(goodTable))
	libs, err := Load([]string{so})
	if err != nil {
		t.Fatal(err)
	}
	l := libs[0]
	if l.Name != "t" || l.Version != "t 0.1" || len(l.Impls) != 2 {
		t.Fatalf("library %+v", l)
	}
	impls, err := loadAndRegister(t, so)
	if err != nil {
		t.Fatal(err)
	}
	p, m := impls[0], impls[1]
	if p.NewToken == nil || p.NewThread != nil || p.NewLock != nil || p.Check == nil {
		t.Fatalf("t-park: %+v", p)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("conformance of a correct parker: %v", err)
	}
	if m.NewLock == nil || m.NewToken != nil {
		t.Fatalf("t-mutex: %+v", m)
	}
	mu := m.NewLock()
	mu.Lock()
	//lint:ignore SA2001 the lock and unlock through the library are what is checked
	mu.Unlock()
}

// Each bad library is refused with a message naming what is wrong.
func TestLoadRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"no entry point", lib(`int unrelated(void) { return 0; }`), "no entry point parkbench_plugin"},
		{"another ABI", lib(`
static const struct pb_plugin table = {3, "t", "v", 0, NULL};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`), "ABI version 3; this parkbench reads versions 1 and 2"},
		{"NULL table", lib(`const struct pb_plugin *parkbench_plugin(void) { return NULL; }`), "returned NULL"},
		{"missing function", lib(`
static const struct pb_parker pk = {tp_new, NULL, tp_park, tp_park_until, NULL, tp_free};
static const struct pb_impl impls[] = {{"t-park", "s", 1, &pk, NULL, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`), `implementation "t-park": its parker has no unpark function`},
		{"bad name", lib(`
static const struct pb_mutex mx = {mx_new, mx_lock, NULL, mx_unlock, free};
static const struct pb_impl impls[] = {{"My Lock", "s", 1, NULL, &mx, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`), `implementation name "My Lock"`},
		{"c- name", lib(`
static const struct pb_mutex mx = {mx_new, mx_lock, NULL, mx_unlock, free};
static const struct pb_impl impls[] = {{"c-lock", "s", 1, NULL, &mx, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`), `"c-" begins the name`},
		{"duplicate", lib(`
static const struct pb_mutex mx = {mx_new, mx_lock, NULL, mx_unlock, free};
static const struct pb_impl impls[] = {{"a", "s", 1, NULL, &mx, NULL, NULL}, {"a", "s", 1, NULL, &mx, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 2, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`), `implementation "a" is listed twice`},
		{"no kind", lib(`
static const struct pb_impl impls[] = {{"a", "s", 1, NULL, NULL, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`), `implementation "a" has no parker, mutex, condvar or lot operations`},
		{"condvar without mutex", lib(`
static int nf(void *c) { (void)c; return -1; }
static void cw(void *c, void *m) { (void)c; (void)m; }
static const struct pb_condvar cv = {mx_new, cw, NULL, nf, nf, free};
static const struct pb_impl impls[] = {{"a", "s", 1, NULL, NULL, &cv, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`), `has a condvar but no mutex`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			so := buildSO(t, tc.src)
			_, err := loadAndRegister(t, so)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), so) {
				t.Fatalf("Load: %v; want an error naming %s and containing %q", err, so, tc.want)
			}
		})
	}
}

func TestLoadNotALibrary(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(f, []byte("not a library\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{f, dir, filepath.Join(dir, "missing.so")} {
		if _, err := Load([]string{p}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("Load(%s): %v; want a refusal naming it", p, err)
		}
	}
	if _, err := Load([]string{f}); err == nil || !strings.Contains(err.Error(), "not a shared library") {
		t.Errorf("Load(text file): %v", err)
	}
}

// A parker that drops an unpark that comes before its park loses wakeups:
// the conformance check refuses it. The check runs with a 300 ms limit
// here, not the 5 s the experiments give it (parkers.ConformLimit): the
// lost wakeup blocks its step for good, so any limit finds it, and the
// plugin's own Check is exercised by the command's tests
// (internal/cli's TestPluginBadInput).
func TestConformanceRefusesLossyParker(t *testing.T) {
	so := buildSO(t, lib(`
// park waits for an unpark that comes after it starts: an earlier one is lost.
static void lossy_park(void *v) {
	tp *p = v;
	pthread_mutex_lock(&p->m);
	p->token = 0;
	while (!p->token) pthread_cond_wait(&p->c, &p->m);
	p->token = 0;
	pthread_mutex_unlock(&p->m);
}
static const struct pb_parker pk = {tp_new, NULL, lossy_park, tp_park_until, tp_unpark, tp_free};
static const struct pb_impl impls[] = {{"lossy", "loses an early unpark", 1, &pk, NULL, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`))
	impls, err := loadAndRegister(t, so)
	if err != nil {
		t.Fatal(err)
	}
	x := impls[0]
	if err := parkers.CheckToken(x.NewToken, parkers.ConformCycles, 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "still blocked") {
		t.Fatalf("conformance check of a lossy parker: %v; want a lost wakeup", err)
	}
}

// A park that never returns is named by the watchdog.
func TestWatchdogNamesHangingPark(t *testing.T) {
	so := buildSO(t, lib(`
static void park_forever(void *v) { (void)v; hang(); }
static const struct pb_parker pk = {tp_new, NULL, park_forever, tp_park_until, tp_unpark, tp_free};
static const struct pb_impl impls[] = {{"hangs", "never returns from park", 1, &pk, NULL, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "t", "v", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }`))
	libs, err := Load([]string{so})
	if err != nil {
		t.Fatal(err)
	}
	hung := make(chan string, 16)
	defer watch.Set(time.Second, func(msg string) {
		if !strings.Contains(msg, `"hangs"`) {
			return // another test's blocked thread (the lossy parker's)
		}
		select {
		case hung <- msg:
		default:
		}
	})()
	watch.Start()
	p := libs[0].Impls[0].NewToken
	go func() {
		// This thread stays blocked in C for the rest of the test binary.
		p().Park()
	}()
	// Other tests' blocked threads (the lossy parker's) may be named
	// too: wait for this one's (a liveness bound, generous for a loaded CI machine).
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case msg := <-hung:
			if strings.Contains(msg, `"hangs"`) {
				if !strings.Contains(msg, "in park for") || !strings.Contains(msg, so) {
					t.Fatalf("watchdog message %q does not name the call", msg)
				}
				return
			}
		case <-timeout:
			t.Fatal("the watchdog did not fire on a park that never returns")
		}
	}
}

func TestPaths(t *testing.T) {
	got := Paths("a.so::b.so", []string{"b.so", "c.so"})
	if strings.Join(got, ",") != "a.so,b.so,c.so" {
		t.Fatalf("Paths = %v", got)
	}
}

// One file named two ways (its absolute path in PARKBENCH_PLUGIN, ./name
// with --plugin, a symbolic link) is one library, loaded once; a copy is
// another file.
func TestPathsOneFileTwoNames(t *testing.T) {
	dir := t.TempDir()
	so := filepath.Join(dir, "lib.so")
	cp := filepath.Join(dir, "copy.so")
	link := filepath.Join(dir, "link.so")
	for _, f := range []string{so, cp} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(so, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	got := Paths(so, []string{"./lib.so", "lib.so", link, cp})
	if strings.Join(got, ",") != so+","+cp {
		t.Fatalf("Paths = %v; want the library once, then the copy", got)
	}
}
