// Package undo is the process's list of what a run changed outside the
// process's own memory and how to put it back, so that every way out of a
// run puts it back: the normal return (each change undone by its own
// code, in order), and the two that do not return: SIGINT or SIGTERM while
// a thread is blocked in foreign code (internal/cli), and a hung foreign
// call (internal/watch). Those call Exit, which runs what is still listed
// and ends the process.
//
// What a run changes and where it is undone (docs/plugins.md says which
// outlive the process): inversion's thread affinities and SCHED_FIFO
// (Push'd by internal/experiments/inversion); the tracing sessions of
// --anatomy are perf events, which the kernel closes with the process;
// GOMAXPROCS, the GC percent and the timer slack are the process's own.
package undo

import (
	"os"
	"sync"
)

type entry struct {
	fn   func()
	once sync.Once
}

var (
	mu      sync.Mutex
	pending []*entry
)

// Push lists fn and returns what runs it: once, whichever of the normal
// path (the returned func) or Exit comes first; the normal path then drops
// it from the list.
func Push(fn func()) (done func()) {
	e := &entry{fn: fn}
	mu.Lock()
	pending = append(pending, e)
	mu.Unlock()
	return func() {
		e.once.Do(e.fn)
		mu.Lock()
		defer mu.Unlock()
		for i, p := range pending {
			if p == e {
				pending = append(pending[:i], pending[i+1:]...)
				break
			}
		}
	}
}

// Run runs everything still listed, the last pushed first, each once.
func Run() {
	mu.Lock()
	list := pending
	pending = nil
	mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		list[i].once.Do(list[i].fn)
	}
}

// Pending is how many are listed (tests).
func Pending() int {
	mu.Lock()
	defer mu.Unlock()
	return len(pending)
}

// Exit runs Run and ends the process with code.
func Exit(code int) {
	Run()
	os.Exit(code)
}
