//go:build (linux || darwin) && cgo

// Package cref is parkbench's C: the references that run with no Go
// runtime in the loop, each the floor the Go implementations are judged
// against in the same run, and the C objects Go locks through cgo.
//
//   - E12's ping-pong (this file, cref.c, cref.h, cref_os.h): the same
//     ping-pong as the Go latency runner (flag + timestamp slot, one-way
//     latency = now - stamp on CLOCK_MONOTONIC), between two C threads made
//     with pthread_create and pinned with pthread_setaffinity_np. Two
//     mechanisms per OS (Floors): on Linux raw futex (FUTEX_WAIT_PRIVATE /
//     FUTEX_WAKE_PRIVATE, c-futex), on darwin __ulock_wait / __ulock_wake
//     (c-ulock: compiled for darwin, never executed), and spinning (c-spin)
//     on both; and selfwake's C rows. cref_os.h holds what differs between
//     the two OSes (darwin: no pinning, no CPU sampling, process-wide switch
//     counts).
//   - E6's pthread herd (herd_cgo.go, herd.c, herd.h).
//   - lock's C loops and the cgo pthread mutex and rwlock (lock_cgo.go,
//     lock.c, lock.h).
//   - wake's C waiters and producer/consumer (wake_cgo.go, wake.c, wake.h).
//
// The C is in the .c and .h files; each Go file's preamble only includes
// its header. The one #cgo CFLAGS line is below (it applies to every C file
// of the package); the C builds clean with -Wall -Wextra. The *_other.go
// files say why each part is unavailable elsewhere.
package cref

/*
#cgo CFLAGS: -O2 -std=gnu11 -I${SRCDIR}/../../include -I${SRCDIR}/../watch
#cgo pbnowatch CFLAGS: -DPBWD_OFF
#include "cref.h"
#include "cref_watch.h"
#include "parkbench.h"
*/
import "C"

import (
	"context"
	"fmt"
	"syscall"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/watch"
)

// The C-thread rows that call a plugin keep watch slots (cref_watch.h).
func init() { C.cref_watch_init(watch.Self()) }

// Available returns nil: the reference runs here.
func Available() error { return nil }

// Pair is two C threads ready to ping-pong. Only one goroutine may use it.
type Pair struct {
	p   *C.cref_pair
	cap int
	// Out-parameters of cref_round, kept here so that a round does not
	// allocate (pointers passed to C escape to the heap).
	r0, r1 C.cref_side
	buf    *C.int64_t
}

// Open starts the two threads of mode on cpus (-1: unpinned), with room for
// capacity round trips per round. sampleCPU makes every 16th wake record
// whether waker and woken were on the same CPU; gap > 0 makes the waker
// nanosleep that long before each wake.
func Open(mode Mode, cpus [2]int, capacity int, gap time.Duration, sampleCPU bool) (*Pair, error) {
	if err := checkMode(mode); err != nil {
		return nil, err
	}
	return open(mode, nil, cpus, capacity, gap, sampleCPU)
}

// OpenPlugin is Open for a plugin's implementation (ext.Impl.C: its struct
// pb_impl of include/parkbench.h, with a parker or lot operations, and who
// it is for the watchdog, internal/watch/watch.h's pbwd_foreign): the same
// ping-pong, its threads calling the library's function pointers.
func OpenPlugin(plugin unsafe.Pointer, cpus [2]int, capacity int, gap time.Duration, sampleCPU bool) (*Pair, error) {
	return open(Plugin, plugin, cpus, capacity, gap, sampleCPU)
}

// OpenPluginOwn is OpenPlugin with the library's own ping-pong wait (ABI
// version 2, struct pb_loops's pingpong_wait; ext.Impl.Own.PingPong): the
// wait for the flag is the library's code, its parker inlined; the wake is
// its unpark (or unpark_one), as in OpenPlugin.
func OpenPluginOwn(plugin unsafe.Pointer, cpus [2]int, capacity int, gap time.Duration, sampleCPU bool) (*Pair, error) {
	return open(ownMode, plugin, cpus, capacity, gap, sampleCPU)
}

// ownMode is CREF_OWN: a plugin's row with its own wait.
const ownMode Mode = C.CREF_OWN

func open(mode Mode, plugin unsafe.Pointer, cpus [2]int, capacity int, gap time.Duration, sampleCPU bool) (*Pair, error) {
	if capacity < 1 {
		capacity = 1
	}
	var cerr C.int
	sc := C.int(0)
	if sampleCPU {
		sc = 1
	}
	p := C.cref_open(C.int(mode), (*C.pbwd_foreign)(plugin), C.int(cpus[0]), C.int(cpus[1]), sc, C.long(gap), C.long(capacity), &cerr)
	if p == nil {
		return nil, fmt.Errorf("cref: starting C threads: %w", syscall.Errno(cerr))
	}
	pr := &Pair{p: p, cap: capacity}
	// A round of zero trips makes both threads pass their pinning.
	pr.Round(0)
	for me := 0; me < 2; me++ {
		if e := C.cref_pin_error(p, C.int(me)); e != 0 {
			pr.Close()
			return nil, fmt.Errorf("cref: pinning to cpu %d: %w", cpus[me], syscall.Errno(e))
		}
	}
	return pr, nil
}

// Tids are the two threads' kernel ids (-1 where the OS has none).
func (pr *Pair) Tids() [2]int {
	return [2]int{int(C.cref_tid(pr.p, 0)), int(C.cref_tid(pr.p, 1))}
}

// EnableEnds makes every later round record Result.Ends.
func (pr *Pair) EnableEnds() error {
	if e := C.cref_enable_ends(pr.p); e != 0 {
		return fmt.Errorf("cref: %w", syscall.Errno(e))
	}
	return nil
}

// Round runs n round trips (at most the capacity) and returns what they
// measured. Result.Samples aliases C memory and is valid until the next
// Round or Close. A sample of a wait that did not sleep is stored as ^v
// (negative), as the Go runner stores it (latency's pingpong.run).
func (pr *Pair) Round(n int) Result {
	if n > pr.cap {
		n = pr.cap
	}
	C.cref_round(pr.p, C.long(n), &pr.r0, &pr.r1, &pr.buf)
	r0, r1, buf := pr.r0, pr.r1, pr.buf
	if int(r0.done) < n || int(r1.done) < n {
		// cref_stop cut the round: its samples are incomplete.
		return Result{Interrupted: true}
	}
	res := Result{
		NoSleep:    uint64(r0.nosleep) + uint64(r1.nosleep),
		ThreadCsw:  int64(r0.csw) + int64(r1.csw),
		SameCPU:    int64(r0.same_cpu) + int64(r1.same_cpu),
		CPUSamples: int64(r0.cpu_samples) + int64(r1.cpu_samples),
	}
	if n > 0 {
		res.Samples = unsafe.Slice((*int64)(unsafe.Pointer(buf)), 2*n)
		if e := C.cref_ends(pr.p); e != nil {
			res.Ends = unsafe.Slice((*int64)(unsafe.Pointer(e)), 2*n)
		}
	}
	return res
}

// RoundContext is Round that ends within one round trip of ctx being
// cancelled (SIGINT, SIGTERM), returning ctx's error: the C threads never
// look at Go's signal handling, so without it an interrupt waited for the
// whole round. After an interrupted round the pair can only be closed.
func (pr *Pair) RoundContext(ctx context.Context, n int) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	p := pr.p
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		C.cref_stop(p)
		close(fired)
	})
	res := pr.Round(n)
	if !stop() {
		// The stop ran or is running: let it finish before the caller
		// may Close (and free) the pair.
		<-fired
	}
	if res.Interrupted {
		return Result{}, ctx.Err()
	}
	return res, nil
}

// Close stops and joins the threads and frees the C memory.
func (pr *Pair) Close() {
	if pr.p != nil {
		C.cref_close(pr.p)
		pr.p = nil
	}
}

// Selfwake runs len(out) samples of pairs wake-then-wait pairs on the
// calling thread, in C, and writes each sample's elapsed ns into out. It
// returns how many waits slept (0 unless the kernel misbehaves). A mode
// that is not one of this OS's Floors measures nothing and returns -1.
func Selfwake(mode Mode, pairs int, out []int64) int {
	if checkMode(mode) != nil {
		return -1
	}
	if len(out) == 0 {
		return 0
	}
	// out holds no Go pointers and C keeps none after returning.
	return int(C.cref_selfwake(C.int(mode), C.long(pairs), C.long(len(out)), (*C.int64_t)(unsafe.Pointer(&out[0]))))
}

// SelfwakePlugin is Selfwake with a plugin's parker (or its lot
// operations; plugin is ext.Impl.C): whether a wait slept is the
// library's secret, so it returns -1 (unknown).
func SelfwakePlugin(plugin unsafe.Pointer, pairs int, out []int64) int {
	if len(out) > 0 {
		C.cref_selfwake_plugin((*C.pbwd_foreign)(plugin), C.long(pairs), C.long(len(out)), (*C.int64_t)(unsafe.Pointer(&out[0])))
	}
	return -1
}

// SelfwakeOwn is SelfwakePlugin with the library's own self-wake loop (ABI
// version 2, struct pb_loops's selfwake; ext.Impl.Own.Selfwake), called
// once per sample for pairs pairs, the harness's clock around it. A loop
// that does not do the pairs it was asked for, by what it returns or by
// its count word, is refused by name.
func SelfwakeOwn(plugin unsafe.Pointer, pairs int, out []int64) error {
	if len(out) == 0 {
		return nil
	}
	var got, counted C.uint64_t
	f := (*C.pbwd_foreign)(plugin)
	if C.cref_selfwake_own(f, C.long(pairs), C.long(len(out)), (*C.int64_t)(unsafe.Pointer(&out[0])), &got, &counted) != 0 {
		return fmt.Errorf("implementation %q: its own self-wake loop, asked for %d pairs, returned %d and counted %d",
			C.GoString(f.who.impl), pairs, uint64(got), uint64(counted))
	}
	return nil
}
