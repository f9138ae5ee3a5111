//go:build ignore

// gen_loops.go writes loop_gen.go: loopOne and loopBare once per Go lock
// type, with
// the lock's methods called on the concrete type, so the compiler inlines
// their fast paths into the loop as rustc does mutex.rs's (generic M,
// monomorphised). Through the type parameter (loopOne) each Lock and
// Unlock is an indirect call through the generic dictionary, and Go's
// calling convention stores every live value around it: about 60
// instructions per iteration against mutex.rs's 15 (docs/findings.md,
// "The port's fast paths"). Run with `go generate` in this directory
// after changing loopOne, loopBare, the list below or loop_gen.go.tmpl (the
// template, whose loop bodies must stay loopOne's and loopBare's);
// TestLoopGenFresh fails while loop_gen.go is not what this writes.
package main

import (
	"bytes"
	_ "embed"
	"flag"
	"go/format"
	"log"
	"os"
	"text/template"
)

// locks are the Go lock types of allImpls (and the harness's emptyLock).
// ByTID: the lock names its owner by kernel TID (pi-futex): the loop reads
// its thread's TID once and calls LockTID, as glibc reads its cached copy,
// where Lock would make a gettid system call per acquisition.
var locks = []struct {
	Name, Type string
	ByTID      bool
}{
	{"LotMutex", "lot.Mutex", false},
	{"LotFair", "lotFair", false},
	{"SyncMutex", "sync.Mutex", false},
	{"StdFutex", "futexsync.Mutex", false},
	{"PIMutex", "futexsync.PIMutex", true},
	{"Pthread", "pthreadLock", false},
	{"Spin", "spinLock", false},
	{"Empty", "emptyLock", false},
}

// loopVariant is one generated loop: loopOne (work) or loopBare (none)
// over one lock type.
type loopVariant struct {
	Name, Type  string
	ByTID, Bare bool
}

//go:embed loop_gen.go.tmpl
var tmplText string

var tmpl = template.Must(template.New("").Parse(tmplText))

// out: the freshness test writes its copy elsewhere.
var out = flag.String("o", "loop_gen.go", "the file to write")

func main() {
	flag.Parse()
	var b bytes.Buffer
	var loops []loopVariant
	for _, l := range locks {
		for _, bare := range []bool{false, true} {
			loops = append(loops, loopVariant{l.Name, l.Type, l.ByTID, bare})
		}
	}
	if err := tmpl.Execute(&b, map[string]any{"Locks": locks, "Loops": loops}); err != nil {
		log.Fatal(err)
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatalf("%v\n%s", err, b.Bytes())
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}
