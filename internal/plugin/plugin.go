// Package plugin loads shared libraries of parkbench's plugin ABI
// (include/parkbench.h, versions 1 and 2) at run time with dlopen, checks their
// table, and turns each implementation into an ext.Impl: a parker, a
// mutex, a condvar and the lot operations callable from Go threads through
// cgo (the trampolines of plugin.h), and, for the C floors, the struct
// pb_impl with its watch sites (internal/cref's C threads call its function
// pointers directly). The implementations' names and kinds are checked
// where every outside implementation's are, by ext.Register.
//
// The thread model: every operation runs on the calling OS thread. A
// participant is a goroutine locked to its thread, so a park that blocks in
// the library blocks that thread, as the cgo pthread parker does: the Go
// scheduler sees a cgo call (entersyscall) and hands the P on if it lasts.
//
// Every call is watched (internal/watch): one that hangs ends the run,
// naming the implementation and the call. What cannot be caught: a library
// that crashes (SIGSEGV in C) takes the process down; the watchdog's crash
// note names the implementation, its library and the call on the first line
// of stderr, then Go reports the signal.
package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
// flags, each file once, in that order; empty entries are skipped. One file
// named two ways (an absolute path and ./lib.so, a symbolic link) is one
// library: the same file (device and inode, os.SameFile) is kept once, as
// first named. dlopen would return the same handle for it, and its names
// would clash with themselves.
func Paths(env string, flags []string) []string {
	var out []string
	var files []os.FileInfo
	seen := map[string]bool{}
	for _, p := range append(strings.Split(env, ":"), flags...) {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		if st, err := os.Stat(p); err == nil {
			if slices.ContainsFunc(files, func(f os.FileInfo) bool { return os.SameFile(f, st) }) {
				continue
			}
			files = append(files, st)
		}
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
	// size is a version-2 table's size field (struct pb_plugin's sizeof
	// as the library was built), min what this build's version 2 needs.
	size, min int
	impls     []entry
}

// loopSet is a version-2 implementation's struct pb_loops: its size field
// (min: version 2's) and which loops it sets.
type loopSet struct {
	size, min                int
	lock, selfwake, pingpong bool
}

// entry is one struct pb_impl: its strings and which operations are set.
type entry struct {
	name, summary string
	sleeps        bool
	parker        *opsSet // create, prepare, park, park_until, unpark, destroy
	mutex         *opsSet // create, lock, trylock, unlock, destroy
	condvar       *opsSet // create, wait, wait_until, notify_one, notify_all, destroy
	lot           *opsSet // park, unpark_one, unpark_all, requeue
	loops         *loopSet
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

// abiVersion is the version this build was made with (PARKBENCH_ABI_VERSION);
// it reads abiV1 too.
const (
	abiVersion = 2
	abiV1      = 1
)

// validate checks what only a table can get wrong: the ABI version, a
// version-2 struct's size, the library's name, that every kind an entry
// claims has its required functions, and that each loop an entry owns has
// what it runs on. The implementations themselves (names, summaries,
// kinds) are checked where every implementation from outside is, by
// ext.Register.
func validate(t table) error {
	if t.abi != abiVersion && t.abi != abiV1 {
		return fmt.Errorf("ABI version %d; this parkbench reads versions %d and %d (include/parkbench.h)", t.abi, abiV1, abiVersion)
	}
	if t.abi == abiVersion && t.size < t.min {
		return fmt.Errorf("the table's size field is %d bytes, less than version %d's struct pb_plugin (%d bytes): set it to sizeof(struct pb_plugin)",
			t.size, abiVersion, t.min)
	}
	if t.name == "" {
		return fmt.Errorf("the table has no name")
	}
	if len(t.impls) == 0 {
		return fmt.Errorf("the table lists no implementations")
	}
	for _, e := range t.impls {
		for _, k := range []struct {
			kind string
			ops  *opsSet
		}{{"parker", e.parker}, {"mutex", e.mutex}, {"condvar", e.condvar}, {"lot", e.lot}} {
			if k.ops == nil {
				continue
			}
			for _, f := range required[k.kind] {
				if !(*k.ops)[f] {
					return fmt.Errorf("implementation %q: its %s has no %s function", e.name, k.kind, f)
				}
			}
		}
		if err := validateLoops(e); err != nil {
			return err
		}
	}
	return nil
}

// validateLoops checks an entry's own loops (version 2): the size field,
// and that each loop has the kind it runs on.
func validateLoops(e entry) error {
	l := e.loops
	if l == nil {
		return nil
	}
	if l.size < l.min {
		return fmt.Errorf("implementation %q: its loops' size field is %d bytes, less than version %d's struct pb_loops (%d bytes): set it to sizeof(struct pb_loops)",
			e.name, l.size, abiVersion, l.min)
	}
	if l.lock && e.mutex == nil {
		return fmt.Errorf("implementation %q has its own lock loop but no mutex (the loop locks one its create made)", e.name)
	}
	if (l.selfwake || l.pingpong) && e.parker == nil && e.lot == nil {
		return fmt.Errorf("implementation %q has its own self-wake or ping-pong loop but no parker and no lot operations", e.name)
	}
	return nil
}
