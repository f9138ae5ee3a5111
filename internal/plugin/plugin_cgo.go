//go:build (linux || darwin) && cgo

package plugin

/*
#cgo CFLAGS: -O2 -std=gnu11 -I${SRCDIR}/../../include -I${SRCDIR}/../watch
#cgo linux LDFLAGS: -ldl
#cgo pbnowatch CFLAGS: -DPBWD_OFF
#include <stdlib.h>
#include "plugin.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/watch"
)

// Supported is nil: plugins load here.
func Supported() error { return nil }

// maxImpls bounds n_impls, so a garbage count is refused rather than read.
const maxImpls = 1024

func open(path string) (*Library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var errbuf [512]C.char
	h := C.pbl_open(cpath, &errbuf[0], C.size_t(len(errbuf)))
	if h == nil {
		return nil, fmt.Errorf("not a shared library parkbench can load: %s", C.GoString(&errbuf[0]))
	}
	// The library stays loaded for the life of the process (never
	// dlclose'd): its table, strings and functions are used to the end.
	csym := C.CString(C.PARKBENCH_PLUGIN_SYMBOL)
	defer C.free(unsafe.Pointer(csym))
	sym := C.pbl_sym(h, csym, &errbuf[0], C.size_t(len(errbuf)))
	if sym == nil {
		return nil, fmt.Errorf("no entry point %s (the library must export it; see include/parkbench.h): %s",
			C.PARKBENCH_PLUGIN_SYMBOL, C.GoString(&errbuf[0]))
	}
	pt := C.pbl_table(sym)
	if pt == nil {
		return nil, errors.New(C.PARKBENCH_PLUGIN_SYMBOL + " returned NULL")
	}
	t := table{abi: uint32(pt.abi), name: goString(pt.name), version: goString(pt.version)}
	if t.abi != abiVersion && t.abi != abiV1 {
		// Another version's struct may be laid out differently: read
		// nothing more of it.
		return nil, validate(t)
	}
	if t.abi == abiVersion {
		// Version 2's fields, which a version-1 table does not have.
		t.size, t.min = int(pt.size), int(C.sizeof_struct_pb_plugin)
		if t.size < t.min {
			return nil, validate(t)
		}
	}
	n := int(pt.n_impls)
	if pt.n_impls > maxImpls {
		return nil, fmt.Errorf("the table says %d implementations (at most %d)", uint64(pt.n_impls), maxImpls)
	}
	if n > 0 && pt.impls == nil {
		return nil, fmt.Errorf("the table says %d implementations but its impls is NULL", n)
	}
	var ces []C.struct_pb_impl
	var loops []*C.struct_pb_loops
	if n > 0 {
		ces = unsafe.Slice(pt.impls, n)
		loops = make([]*C.struct_pb_loops, n)
		if t.abi == abiVersion && pt.loops != nil {
			copy(loops, unsafe.Slice(pt.loops, n))
		}
	}
	for i := range ces {
		e := decode(&ces[i])
		if l := loops[i]; l != nil {
			e.loops = &loopSet{size: int(l.size), min: int(C.sizeof_struct_pb_loops)}
			if e.loops.size >= e.loops.min {
				e.loops.lock, e.loops.selfwake, e.loops.pingpong = l.lock != nil, l.selfwake != nil, l.pingpong_wait != nil
			}
		}
		t.impls = append(t.impls, e)
	}
	if err := validate(t); err != nil {
		return nil, err
	}
	lib := &Library{Path: path, Name: t.name, Version: t.version}
	for i := range ces {
		lib.Impls = append(lib.Impls, implOf(&ces[i], loops[i], t.impls[i], path, t.name, t.version))
	}
	return lib, nil
}

func goString(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

func set(ps ...unsafe.Pointer) []bool {
	out := make([]bool, len(ps))
	for i, p := range ps {
		out[i] = p != nil
	}
	return out
}

func opsOf(names []string, present []bool) *opsSet {
	o := opsSet{}
	for i, n := range names {
		o[n] = present[i]
	}
	return &o
}

func fp(f *[0]byte) unsafe.Pointer { return unsafe.Pointer(f) }

// decode reads one struct pb_impl for validate.
func decode(ce *C.struct_pb_impl) entry {
	e := entry{name: goString(ce.name), summary: goString(ce.summary), sleeps: ce.sleeps != 0}
	if p := ce.parker; p != nil {
		e.parker = opsOf([]string{"create", "prepare", "park", "park_until", "unpark", "destroy"},
			set(fp(p.create), fp(p.prepare), fp(p.park), fp(p.park_until), fp(p.unpark), fp(p.destroy)))
	}
	if m := ce.mutex; m != nil {
		e.mutex = opsOf([]string{"create", "lock", "trylock", "unlock", "destroy"},
			set(fp(m.create), fp(m.lock), fp(m.trylock), fp(m.unlock), fp(m.destroy)))
	}
	if c := ce.condvar; c != nil {
		e.condvar = opsOf([]string{"create", "wait", "wait_until", "notify_one", "notify_all", "destroy"},
			set(fp(c.create), fp(c.wait), fp(c.wait_until), fp(c.notify_one), fp(c.notify_all), fp(c.destroy)))
	}
	if l := ce.lot; l != nil {
		e.lot = opsOf([]string{"park", "unpark_one", "unpark_all", "requeue"},
			set(fp(l.park), fp(l.unpark_one), fp(l.unpark_all), fp(l.requeue)))
	}
	return e
}

func init() { C.pbl_watch_init(watch.Self()) }

// implOf builds the ext.Impl of a validated entry. Its C is the entry's
// pbwd_foreign (the struct pb_impl, who it is and a watch site per call),
// made once and kept for the life of the process, as the library is.
func implOf(ce *C.struct_pb_impl, loops *C.struct_pb_loops, e entry, path, lib, version string) ext.Impl {
	f := C.pbl_foreign(ce, C.CString(path))
	if f == nil {
		panic("plugin: out of memory")
	}
	x := ext.Impl{Name: e.name, Summary: e.summary, Sleeps: e.sleeps, Origin: "plugin " + path, Library: lib, Version: version,
		C: unsafe.Pointer(f)}
	if l := e.loops; l != nil {
		// Validated: the size holds every version-2 field.
		f.loops = loops
		x.Own = ext.Loops{Lock: l.lock, Selfwake: l.selfwake, PingPong: l.pingpong}
	}
	if p := ce.parker; p != nil {
		if p.prepare == nil {
			x.NewToken = func() parkers.TokenParker { return newToken(p, f) }
		} else {
			x.NewThread = func() parkers.ThreadParker { return newThread(p, f) }
		}
	}
	if l := ce.lot; l != nil {
		x.Lot = &lot{ops: l, f: f}
		if x.NewThread == nil && x.NewToken == nil {
			// A lot alone runs where a parker does, as a token parker
			// on a word of its own (LotToken).
			x.NewToken = func() parkers.TokenParker { return ext.LotToken(x.Lot) }
		}
	}
	if m := ce.mutex; m != nil {
		x.NewLock = func() ext.Locker { return newMutex(m, f) }
	}
	if c := ce.condvar; c != nil {
		// Without a mutex, ext.Register refuses it.
		x.NewCond = func(l ext.Locker) ext.Cond { return newCond(c, l, f) }
	}
	return x
}

// word is a C pointer (a function, a library's object, a watch site) as
// the trampolines take it: an integer, which cgo does not check for Go
// pointers (plugin.h).
type word = C.uintptr_t

func fn(f *[0]byte) word { return word(uintptr(unsafe.Pointer(f))) }

// site is f's watch site of op (watch.h's pbwd_site).
func site(f *C.pbwd_foreign, op int) word { return word(uintptr(unsafe.Pointer(&f.sites[op]))) }

// rel is the time until d in ns, clamped to what an int64 of ns holds.
func rel(d time.Time) C.int64_t {
	r := time.Until(d)
	if r > time.Duration(math.MaxInt64/2) {
		r = time.Duration(math.MaxInt64 / 2)
	}
	return C.int64_t(r)
}

// destroyArg is what a parker's, mutex's or condvar's cleanup needs: not
// the Go wrapper (which must become unreachable for the cleanup to run).
type destroyArg struct {
	fn, h word
	f     *C.pbwd_foreign
}

func destroy(a destroyArg) { C.pbl_v(a.fn, a.h, site(a.f, C.PBWD_DESTROY)) }

func create(fp *[0]byte, f *C.pbwd_foreign) word { return C.pbl_create(fn(fp), site(f, C.PBWD_CREATE)) }

// token is a token parker (prepare NULL). create runs on the calling
// thread, which is the owner: the experiments make each parker on its
// participant's thread.
type token struct {
	ops *C.struct_pb_parker
	h   word
	f   *C.pbwd_foreign
}

func newToken(ops *C.struct_pb_parker, f *C.pbwd_foreign) *token {
	t := &token{ops: ops, h: create(ops.create, f), f: f}
	runtime.AddCleanup(t, destroy, destroyArg{fn(ops.destroy), t.h, f})
	return t
}

func (t *token) Park() { C.pbl_v(fn(t.ops.park), t.h, site(t.f, C.PBWD_PARK)) }
func (t *token) ParkDeadline(d time.Time) bool {
	return C.pbl_park_for(fn(t.ops.park_until), t.h, rel(d), site(t.f, C.PBWD_PARK_UNTIL)) != 0
}
func (t *token) Unpark() { C.pbl_v(fn(t.ops.unpark), t.h, site(t.f, C.PBWD_UNPARK)) }

// thread is a thread parker (prepare set): parking_lot's ThreadParkerT,
// whose TimedOut and UnparkLock the ABI folds into park_until and unpark.
// state answers TimedOut as upstream's pthread parker does: 0 after
// PreparePark, 1 once UnparkLock marked the thread (under the queue lock),
// 2 once that unpark's call returned. TimedOut (also under the queue lock)
// with state 0 is a real timeout; otherwise an unpark raced in, and
// TimedOut waits for its call to finish so that it cannot land on the
// next PreparePark.
type thread struct {
	ops   *C.struct_pb_parker
	h     word
	f     *C.pbwd_foreign
	state atomic.Int32
}

type threadUnpark thread

func newThread(ops *C.struct_pb_parker, f *C.pbwd_foreign) *thread {
	t := &thread{ops: ops, h: create(ops.create, f), f: f}
	runtime.AddCleanup(t, destroy, destroyArg{fn(ops.destroy), t.h, f})
	return t
}

func (t *thread) PreparePark() {
	t.state.Store(0)
	C.pbl_v(fn(t.ops.prepare), t.h, site(t.f, C.PBWD_PREPARE))
}
func (t *thread) Park() { C.pbl_v(fn(t.ops.park), t.h, site(t.f, C.PBWD_PARK)) }
func (t *thread) ParkUntil(d time.Time) bool {
	return C.pbl_park_for(fn(t.ops.park_until), t.h, rel(d), site(t.f, C.PBWD_PARK_UNTIL)) != 0
}
func (t *thread) TimedOut() bool {
	if t.state.Load() == 0 {
		return true
	}
	for t.state.Load() != 2 {
		runtime.Gosched()
	}
	return false
}
func (t *thread) UnparkLock() parkers.UnparkHandle {
	t.state.Store(1)
	return (*threadUnpark)(t)
}
func (u *threadUnpark) Unpark() {
	C.pbl_v(fn(u.ops.unpark), u.h, site(u.f, C.PBWD_UNPARK))
	u.state.Store(2)
}

// mutex is a pb_mutex through cgo: one crossing per Lock and per Unlock.
type mutex struct {
	ops *C.struct_pb_mutex
	h   word
	f   *C.pbwd_foreign
}

func newMutex(ops *C.struct_pb_mutex, f *C.pbwd_foreign) *mutex {
	m := &mutex{ops: ops, h: create(ops.create, f), f: f}
	runtime.AddCleanup(m, destroy, destroyArg{fn(ops.destroy), m.h, f})
	return m
}

func (m *mutex) Lock()   { C.pbl_v(fn(m.ops.lock), m.h, site(m.f, C.PBWD_LOCK)) }
func (m *mutex) Unlock() { C.pbl_v(fn(m.ops.unlock), m.h, site(m.f, C.PBWD_UNLOCK)) }

// TryLock is trylock, or false when the library has none.
func (m *mutex) TryLock() bool {
	return m.ops.trylock != nil && C.pbl_i(fn(m.ops.trylock), m.h, site(m.f, C.PBWD_TRYLOCK)) != 0
}

// cond is a pb_condvar used with a mutex of the same implementation.
type cond struct {
	ops *C.struct_pb_condvar
	h   word
	m   *mutex
	f   *C.pbwd_foreign
}

func newCond(ops *C.struct_pb_condvar, l ext.Locker, f *C.pbwd_foreign) *cond {
	m, ok := l.(*mutex)
	if !ok {
		panic(fmt.Sprintf("plugin: the condvar of %s is used with a %T, not its own mutex", C.GoString(f.who.impl), l))
	}
	c := &cond{ops: ops, h: create(ops.create, f), m: m, f: f}
	runtime.AddCleanup(c, destroy, destroyArg{fn(ops.destroy), c.h, f})
	return c
}

func (c *cond) Wait()      { C.pbl_wait(fn(c.ops.wait), c.h, c.m.h, site(c.f, C.PBWD_WAIT)) }
func (c *cond) Signal()    { c.SignalCount() }
func (c *cond) Broadcast() { c.BroadcastCount() }
func (c *cond) SignalCount() int {
	return int(C.pbl_i(fn(c.ops.notify_one), c.h, site(c.f, C.PBWD_NOTIFY_ONE)))
}
func (c *cond) BroadcastCount() int {
	return int(C.pbl_i(fn(c.ops.notify_all), c.h, site(c.f, C.PBWD_NOTIFY_ALL)))
}

// WaitUntil is wait_until: false when the deadline passed. A library
// without it waits without one.
func (c *cond) WaitUntil(d time.Time) bool {
	if c.ops.wait_until == nil {
		c.Wait()
		return true
	}
	return C.pbl_wait_for(fn(c.ops.wait_until), c.h, c.m.h, rel(d), site(c.f, C.PBWD_WAIT_UNTIL)) != 0
}

// lot is a pb_lot. The address passed is Go memory: cgo pins it for the
// call, and the library keeps it only as a key while the call runs.
type lot struct {
	ops *C.struct_pb_lot
	f   *C.pbwd_foreign
}

func (l *lot) Park(addr *uint32, expected uint32, deadline time.Time) int {
	timed := C.int(0)
	var r C.int64_t
	if !deadline.IsZero() {
		timed, r = 1, rel(deadline)
	}
	return int(C.pbl_lot_park(fn(l.ops.park), (*C.uint32_t)(unsafe.Pointer(addr)), C.uint32_t(expected), r, timed, site(l.f, C.PBWD_LOT_PARK)))
}
func (l *lot) UnparkOne(addr *uint32) int {
	return int(C.pbl_lot1(fn(l.ops.unpark_one), (*C.uint32_t)(unsafe.Pointer(addr)), site(l.f, C.PBWD_LOT_UNPARK_ONE)))
}
func (l *lot) UnparkAll(addr *uint32) int {
	return int(C.pbl_lot1(fn(l.ops.unpark_all), (*C.uint32_t)(unsafe.Pointer(addr)), site(l.f, C.PBWD_LOT_UNPARK_ALL)))
}
func (l *lot) HasRequeue() bool { return l.ops.requeue != nil }
func (l *lot) Requeue(from, to *uint32) int {
	if l.ops.requeue == nil {
		return -1
	}
	return int(C.pbl_lot2(fn(l.ops.requeue), (*C.uint32_t)(unsafe.Pointer(from)), (*C.uint32_t)(unsafe.Pointer(to)), site(l.f, C.PBWD_LOT_REQUEUE)))
}
