//go:build (linux || darwin) && cgo

package plugin

/*
#cgo CFLAGS: -O2 -std=gnu11 -I${SRCDIR}/../../include
#cgo linux LDFLAGS: -ldl
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "parkbench.h"

// dlopen and dlsym, with dlerror's text copied out (it is per thread and
// valid only until the next call).
static void *pbl_open(const char *path, char *err, size_t n) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		snprintf(err, n, "%s", e ? e : "dlopen failed");
	}
	return h;
}
static void *pbl_sym(void *h, const char *name, char *err, size_t n) {
	dlerror();
	void *s = dlsym(h, name);
	if (s == NULL) {
		const char *e = dlerror();
		snprintf(err, n, "%s", e ? e : "the symbol is NULL");
	}
	return s;
}
static const struct pb_plugin *pbl_table(void *sym) {
	return ((const struct pb_plugin *(*)(void))sym)();
}

// The watchdog's view of each thread that calls a blocking operation: a
// slot per thread (thread-local, made on its first call, on a list the
// watchdog scans), in which the thread counts the calls it begins and
// names the implementation while one runs. Both are relaxed stores to the
// thread's own slot: a plain store each, nothing shared in the measured
// path. A slot whose call has not moved for `limit` scans is a hung call.
// The slot of an exiting thread is marked by its key's destructor and
// freed by the next scan.
typedef struct pbl_watch {
	uint64_t seq;     // calls begun
	const char *what; // the implementation's name while a call runs
	int op;           // which call (pbl_op_name)
	int dead;
	uint64_t last_seq; // the scanner's own fields
	int stalled;
	int reported; // this call was reported once (each hung call is reported once)
	struct pbl_watch *next;
} pbl_watch;

static pthread_mutex_t pbl_wmu = PTHREAD_MUTEX_INITIALIZER;
static pbl_watch *pbl_wlist;
static pthread_key_t pbl_wkey;
static pthread_once_t pbl_wonce = PTHREAD_ONCE_INIT;
static __thread pbl_watch *pbl_tw;

static void pbl_wdead(void *w) { __atomic_store_n(&((pbl_watch *)w)->dead, 1, __ATOMIC_RELEASE); }
static void pbl_wkeyinit(void) { pthread_key_create(&pbl_wkey, pbl_wdead); }

static pbl_watch *pbl_self_slow(void) {
	pbl_watch *w = calloc(1, sizeof *w);
	if (w == NULL)
		abort();
	pthread_once(&pbl_wonce, pbl_wkeyinit);
	pthread_setspecific(pbl_wkey, w);
	pthread_mutex_lock(&pbl_wmu);
	w->next = pbl_wlist;
	pbl_wlist = w;
	pthread_mutex_unlock(&pbl_wmu);
	pbl_tw = w;
	return w;
}
static inline pbl_watch *pbl_self(void) {
	pbl_watch *w = pbl_tw;
	return __builtin_expect(w != NULL, 1) ? w : pbl_self_slow();
}

enum { PBL_PARK = 1, PBL_PARK_UNTIL, PBL_LOCK, PBL_WAIT, PBL_WAIT_UNTIL, PBL_LOT_PARK };

#define WATCH_BEGIN(name, o)                                                    \
	pbl_watch *w_ = pbl_self();                                             \
	__atomic_store_n(&w_->seq, w_->seq + 1, __ATOMIC_RELAXED);              \
	__atomic_store_n(&w_->op, (o), __ATOMIC_RELAXED);                       \
	__atomic_store_n(&w_->what, (name), __ATOMIC_RELAXED)
#define WATCH_END() __atomic_store_n(&w_->what, NULL, __ATOMIC_RELAXED)

// pbl_scan returns the name of the implementation in a call that has not
// moved for limit scans (and the call in *op), or NULL.
static const char *pbl_scan(int limit, int *op) {
	const char *hit = NULL;
	pthread_mutex_lock(&pbl_wmu);
	pbl_watch **pp = &pbl_wlist;
	while (*pp != NULL) {
		pbl_watch *w = *pp;
		if (__atomic_load_n(&w->dead, __ATOMIC_ACQUIRE)) {
			*pp = w->next;
			free(w);
			continue;
		}
		const char *what = __atomic_load_n(&w->what, __ATOMIC_RELAXED);
		uint64_t seq = __atomic_load_n(&w->seq, __ATOMIC_RELAXED);
		if (what != NULL && seq == w->last_seq) {
			if (++w->stalled >= limit && hit == NULL && !w->reported) {
				w->reported = 1;
				hit = what;
				*op = __atomic_load_n(&w->op, __ATOMIC_RELAXED);
			}
		} else {
			w->stalled = 0;
			w->reported = 0;
			w->last_seq = seq;
		}
		pp = &w->next;
	}
	pthread_mutex_unlock(&pbl_wmu);
	return hit;
}

// deadline is now (CLOCK_MONOTONIC) + rel, never below 0.
static inline int64_t pbl_deadline(int64_t rel) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	if (rel < -now)
		return 0;
	return now + rel;
}

// The trampolines: Go cannot call a C function pointer, so each call goes
// through one of these (one cgo crossing each).
typedef void (*pbl_fv)(void *);
typedef int (*pbl_fi)(void *);
typedef void *(*pbl_fnew)(void);

static void *pbl_create(void *f) { return ((pbl_fnew)f)(); }
static void pbl_v(void *f, void *p) { ((pbl_fv)f)(p); }
static int pbl_i(void *f, void *p) { return ((pbl_fi)f)(p); }

static void pbl_park(void *f, void *p, const char *name) {
	WATCH_BEGIN(name, PBL_PARK);
	((pbl_fv)f)(p);
	WATCH_END();
}
static int pbl_park_for(void *f, void *p, int64_t rel, const char *name) {
	int64_t d = pbl_deadline(rel);
	WATCH_BEGIN(name, PBL_PARK_UNTIL);
	int r = ((int (*)(void *, int64_t))f)(p, d);
	WATCH_END();
	return r;
}
static void pbl_lock(void *f, void *m, const char *name) {
	WATCH_BEGIN(name, PBL_LOCK);
	((pbl_fv)f)(m);
	WATCH_END();
}
static void pbl_wait(void *f, void *c, void *m, const char *name) {
	WATCH_BEGIN(name, PBL_WAIT);
	((void (*)(void *, void *))f)(c, m);
	WATCH_END();
}
static int pbl_wait_for(void *f, void *c, void *m, int64_t rel, const char *name) {
	int64_t d = pbl_deadline(rel);
	WATCH_BEGIN(name, PBL_WAIT_UNTIL);
	int r = ((int (*)(void *, void *, int64_t))f)(c, m, d);
	WATCH_END();
	return r;
}
static int pbl_lot_park(void *f, uint32_t *a, uint32_t expected, int64_t rel, int timed, const char *name) {
	int64_t d = timed ? pbl_deadline(rel) : -1;
	WATCH_BEGIN(name, PBL_LOT_PARK);
	int r = ((int (*)(const uint32_t *, uint32_t, int64_t))f)(a, expected, d);
	WATCH_END();
	return r;
}
static int pbl_lot1(void *f, uint32_t *a) { return ((int (*)(const uint32_t *))f)(a); }
static int pbl_lot2(void *f, uint32_t *a, uint32_t *b) {
	return ((int (*)(const uint32_t *, const uint32_t *))f)(a, b);
}
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
	if t.abi != abiVersion {
		// Another version's struct may be laid out differently: read
		// nothing more of it.
		return nil, validate(t)
	}
	n := int(pt.n_impls)
	if pt.n_impls > maxImpls {
		return nil, fmt.Errorf("the table says %d implementations (at most %d)", uint64(pt.n_impls), maxImpls)
	}
	if n > 0 && pt.impls == nil {
		return nil, fmt.Errorf("the table says %d implementations but its impls is NULL", n)
	}
	var ces []C.struct_pb_impl
	if n > 0 {
		ces = unsafe.Slice(pt.impls, n)
	}
	for i := range ces {
		t.impls = append(t.impls, decode(&ces[i]))
	}
	if err := validate(t); err != nil {
		return nil, err
	}
	lib := &Library{Path: path, Name: t.name, Version: t.version}
	origin := "plugin " + path
	for i := range ces {
		lib.Impls = append(lib.Impls, implOf(&ces[i], t.impls[i], origin, t.name, t.version))
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
	e := entry{name: goString(ce.name), nilName: ce.name == nil, summary: goString(ce.summary), sleeps: ce.sleeps != 0}
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

// conformLimit bounds each step of a parker's conformance check.
const conformLimit = 5 * time.Second

// implOf builds the ext.Impl of a validated entry.
func implOf(ce *C.struct_pb_impl, e entry, origin, lib, version string) ext.Impl {
	x := ext.Impl{Name: e.name, Summary: e.summary, Sleeps: e.sleeps, Origin: origin, Library: lib, Version: version,
		C: unsafe.Pointer(ce)}
	name := ce.name
	if p := ce.parker; p != nil {
		if p.prepare == nil {
			x.NewToken = func() parkers.TokenParker { return newToken(p, name) }
		} else {
			x.NewThread = func() parkers.ThreadParker { return newThread(p, name) }
		}
	}
	if l := ce.lot; l != nil {
		x.Lot = &lot{ops: l, name: name}
		if x.NewThread == nil && x.NewToken == nil {
			// A lot alone runs where a parker does, as a token parker
			// on a word of its own (LotToken).
			x.NewToken = func() parkers.TokenParker { return ext.LotToken(x.Lot) }
		}
	}
	if m := ce.mutex; m != nil {
		x.NewLock = func() ext.Locker { return newMutex(m, name) }
		if c := ce.condvar; c != nil {
			x.NewCond = func(l ext.Locker) ext.Cond { return newCond(c, l, name) }
		}
	}
	switch {
	case x.NewThread != nil:
		x.Check = func() error { return parkers.CheckThread(x.NewThread, parkers.ConformCycles, conformLimit) }
	case x.NewToken != nil:
		x.Check = func() error { return parkers.CheckToken(x.NewToken, parkers.ConformCycles, conformLimit) }
	}
	return x
}

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
	fn *[0]byte
	h  unsafe.Pointer
}

func destroy(a destroyArg) { C.pbl_v(fp(a.fn), a.h) }

// token is a token parker (prepare NULL). create runs on the calling
// thread, which is the owner: the experiments make each parker on its
// participant's thread.
type token struct {
	ops  *C.struct_pb_parker
	h    unsafe.Pointer
	name *C.char
}

func newToken(ops *C.struct_pb_parker, name *C.char) *token {
	t := &token{ops: ops, h: C.pbl_create(fp(ops.create)), name: name}
	runtime.AddCleanup(t, destroy, destroyArg{ops.destroy, t.h})
	return t
}

func (t *token) Park() { C.pbl_park(fp(t.ops.park), t.h, t.name) }
func (t *token) ParkDeadline(d time.Time) bool {
	return C.pbl_park_for(fp(t.ops.park_until), t.h, rel(d), t.name) != 0
}
func (t *token) Unpark() { C.pbl_v(fp(t.ops.unpark), t.h) }

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
	h     unsafe.Pointer
	name  *C.char
	state atomic.Int32
}

type threadUnpark thread

func newThread(ops *C.struct_pb_parker, name *C.char) *thread {
	t := &thread{ops: ops, h: C.pbl_create(fp(ops.create)), name: name}
	runtime.AddCleanup(t, destroy, destroyArg{ops.destroy, t.h})
	return t
}

func (t *thread) PreparePark() {
	t.state.Store(0)
	C.pbl_v(fp(t.ops.prepare), t.h)
}
func (t *thread) Park() { C.pbl_park(fp(t.ops.park), t.h, t.name) }
func (t *thread) ParkUntil(d time.Time) bool {
	return C.pbl_park_for(fp(t.ops.park_until), t.h, rel(d), t.name) != 0
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
	C.pbl_v(fp(u.ops.unpark), u.h)
	u.state.Store(2)
}

// mutex is a pb_mutex through cgo: one crossing per Lock and per Unlock.
type mutex struct {
	ops  *C.struct_pb_mutex
	h    unsafe.Pointer
	name *C.char
}

func newMutex(ops *C.struct_pb_mutex, name *C.char) *mutex {
	m := &mutex{ops: ops, h: C.pbl_create(fp(ops.create)), name: name}
	runtime.AddCleanup(m, destroy, destroyArg{ops.destroy, m.h})
	return m
}

func (m *mutex) Lock()   { C.pbl_lock(fp(m.ops.lock), m.h, m.name) }
func (m *mutex) Unlock() { C.pbl_v(fp(m.ops.unlock), m.h) }

// TryLock is trylock, or false when the library has none.
func (m *mutex) TryLock() bool {
	return m.ops.trylock != nil && C.pbl_i(fp(m.ops.trylock), m.h) != 0
}

// cond is a pb_condvar used with a mutex of the same implementation.
type cond struct {
	ops  *C.struct_pb_condvar
	h    unsafe.Pointer
	m    *mutex
	name *C.char
}

func newCond(ops *C.struct_pb_condvar, l ext.Locker, name *C.char) *cond {
	m, ok := l.(*mutex)
	if !ok {
		panic(fmt.Sprintf("plugin: the condvar of %s is used with a %T, not its own mutex", C.GoString(name), l))
	}
	c := &cond{ops: ops, h: C.pbl_create(fp(ops.create)), m: m, name: name}
	runtime.AddCleanup(c, destroy, destroyArg{ops.destroy, c.h})
	return c
}

func (c *cond) Wait()               { C.pbl_wait(fp(c.ops.wait), c.h, c.m.h, c.name) }
func (c *cond) Signal()             { c.SignalCount() }
func (c *cond) Broadcast()          { c.BroadcastCount() }
func (c *cond) SignalCount() int    { return int(C.pbl_i(fp(c.ops.notify_one), c.h)) }
func (c *cond) BroadcastCount() int { return int(C.pbl_i(fp(c.ops.notify_all), c.h)) }

// WaitUntil is wait_until: false when the deadline passed. A library
// without it waits without one.
func (c *cond) WaitUntil(d time.Time) bool {
	if c.ops.wait_until == nil {
		c.Wait()
		return true
	}
	return C.pbl_wait_for(fp(c.ops.wait_until), c.h, c.m.h, rel(d), c.name) != 0
}

// lot is a pb_lot. The address passed is Go memory: cgo pins it for the
// call, and the library keeps it only as a key while the call runs.
type lot struct {
	ops  *C.struct_pb_lot
	name *C.char
}

func (l *lot) Park(addr *uint32, expected uint32, deadline time.Time) int {
	timed := C.int(0)
	var r C.int64_t
	if !deadline.IsZero() {
		timed, r = 1, rel(deadline)
	}
	return int(C.pbl_lot_park(fp(l.ops.park), (*C.uint32_t)(unsafe.Pointer(addr)), C.uint32_t(expected), r, timed, l.name))
}
func (l *lot) UnparkOne(addr *uint32) int {
	return int(C.pbl_lot1(fp(l.ops.unpark_one), (*C.uint32_t)(unsafe.Pointer(addr))))
}
func (l *lot) UnparkAll(addr *uint32) int {
	return int(C.pbl_lot1(fp(l.ops.unpark_all), (*C.uint32_t)(unsafe.Pointer(addr))))
}
func (l *lot) HasRequeue() bool { return l.ops.requeue != nil }
func (l *lot) Requeue(from, to *uint32) int {
	if l.ops.requeue == nil {
		return -1
	}
	return int(C.pbl_lot2(fp(l.ops.requeue), (*C.uint32_t)(unsafe.Pointer(from)), (*C.uint32_t)(unsafe.Pointer(to))))
}

// scan is one watchdog look (watch.go): the implementation and call that
// has not moved for limit scans, if any.
func scan(limit int) (name, call string, hung bool) {
	var op C.int
	s := C.pbl_scan(C.int(limit), &op)
	if s == nil {
		return "", "", false
	}
	calls := map[C.int]string{C.PBL_PARK: "park", C.PBL_PARK_UNTIL: "park_until", C.PBL_LOCK: "lock",
		C.PBL_WAIT: "condvar wait", C.PBL_WAIT_UNTIL: "condvar wait_until", C.PBL_LOT_PARK: "lot park"}
	return C.GoString(s), calls[op], true
}
