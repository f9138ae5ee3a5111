// Package plugin loads shared libraries of parkbench's plugin ABI
// (include/parkbench.h, version 1) at run time with dlopen, checks their
// table, and turns each implementation into an ext.Impl: a parker, a
// mutex, a condvar and the lot operations callable from Go threads through
// cgo, and the struct pb_impl itself for the C floors (internal/cref's C
// threads call its function pointers directly).
//
// The thread model: every operation runs on the calling OS thread. A
// participant is a goroutine locked to its thread, so a park that blocks in
// the library blocks that thread, as the cgo pthread parker does: the Go
// scheduler sees a cgo call (entersyscall) and hands the P on if it lasts.
//
// What cannot be caught: a library that crashes (SIGSEGV in C) takes the
// process down; Go prints the signal and the C frames. A park that hangs
// is caught by the watchdog (watch.go), which names the implementation and
// ends the run.
package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parkbench/parkbench/internal/ext"
)

// EnvVar is the environment variable that lists plugins to load, separated
// by ':' (as PATH), before those given with --plugin.
const EnvVar = "PARKBENCH_PLUGIN"

// Library is one loaded plugin.
type Library struct {
	// Path is the file as given.
	Path string
	// Name and Version are the table's.
	Name, Version string
	// Impls are its implementations.
	Impls []ext.Impl
}

// Paths returns the plugins named by env (the value of EnvVar) and then by
// flags, each once, in that order; empty entries are skipped.
func Paths(env string, flags []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range append(strings.Split(env, ":"), flags...) {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// Error is a refused plugin: the file, and why.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("plugin %s: %v", e.Path, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Load opens every path and returns the libraries, or the first refusal.
// Nothing is registered: the caller registers (ext.Register) once every
// library has loaded.
func Load(paths []string) ([]*Library, error) {
	var out []*Library
	for _, p := range paths {
		l, err := load1(p)
		if err != nil {
			return nil, &Error{Path: p, Err: err}
		}
		out = append(out, l)
	}
	return out, nil
}

func load1(path string) (*Library, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("is a directory, not a shared library")
	}
	// dlopen searches the library path for a name without a slash; a
	// plugin is a file the user names, so make it a path.
	if !strings.ContainsRune(path, '/') {
		path = "./" + path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return open(abs)
}

// table is the library's table as Go reads it, before any check: what
// validate judges (the C-side decoding is in plugin_cgo.go).
type table struct {
	abi           uint32
	name, version string
	impls         []entry
}

// entry is one struct pb_impl: its strings and which operations are set.
type entry struct {
	name, summary string
	nilName       bool
	sleeps        bool
	parker        *opsSet // create, prepare, park, park_until, unpark, destroy
	mutex         *opsSet // create, lock, trylock, unlock, destroy
	condvar       *opsSet // create, wait, wait_until, notify_one, notify_all, destroy
	lot           *opsSet // park, unpark_one, unpark_all, requeue
}

// opsSet says which function pointers of one ops struct are set, by field
// name.
type opsSet map[string]bool

// Required (non-NULL) functions per kind; the others may be NULL.
var required = map[string][]string{
	"parker":  {"create", "park", "park_until", "unpark", "destroy"},
	"mutex":   {"create", "lock", "unlock", "destroy"},
	"condvar": {"create", "wait", "notify_one", "notify_all", "destroy"},
	"lot":     {"park", "unpark_one", "unpark_all"},
}

// abiVersion is the version this build was made with (PARKBENCH_ABI_VERSION).
const abiVersion = 1

// validate checks a table: the ABI version, each entry's name (the header's
// rule, unique in the library) and summary, and every kind it claims has
// its required functions.
func validate(t table) error {
	if t.abi != abiVersion {
		return fmt.Errorf("ABI version %d; this parkbench reads version %d (include/parkbench.h)", t.abi, abiVersion)
	}
	if t.name == "" {
		return fmt.Errorf("the table has no name")
	}
	if len(t.impls) == 0 {
		return fmt.Errorf("the table lists no implementations")
	}
	seen := map[string]bool{}
	for i, e := range t.impls {
		if e.nilName {
			return fmt.Errorf("implementation %d has no name", i)
		}
		if why := ext.CheckName(e.name); why != "" {
			return fmt.Errorf("implementation name %q: %s", e.name, why)
		}
		if seen[e.name] {
			return fmt.Errorf("implementation %q is listed twice: each name is one implementation", e.name)
		}
		seen[e.name] = true
		if len(e.summary) > 80 || strings.ContainsAny(e.summary, "\n\r") {
			return fmt.Errorf("implementation %q: the summary is one line of at most 80 bytes", e.name)
		}
		kinds := map[string]*opsSet{"parker": e.parker, "mutex": e.mutex, "condvar": e.condvar, "lot": e.lot}
		any := false
		for _, k := range []string{"parker", "mutex", "condvar", "lot"} {
			ops := kinds[k]
			if ops == nil {
				continue
			}
			any = true
			for _, f := range required[k] {
				if !(*ops)[f] {
					return fmt.Errorf("implementation %q: its %s has no %s function", e.name, k, f)
				}
			}
		}
		if !any {
			return fmt.Errorf("implementation %q has no parker, mutex, condvar or lot operations", e.name)
		}
		if e.condvar != nil && e.mutex == nil {
			return fmt.Errorf("implementation %q has a condvar but no mutex to use it with", e.name)
		}
	}
	return nil
}
