//go:build (linux || darwin) && cgo

package watch

/*
#include <stdlib.h>
#include "watch.h"

// The tests' hands on the calling thread's slot (hooks_cgo.go).
static pbw_foreign pbw_test_f;
static _Atomic uint64_t pbw_test_count;
static void pbw_test_enter(int op) {
	if (pbw_test_f.who.impl == NULL)
		pbw_foreign_init(&pbw_test_f, NULL, "test-impl", "test-lib");
	pbw_enter(pbw_self(), &pbw_test_f.sites[op]);
}
static uint64_t pbw_test_n;
static void pbw_test_tick(void) { pbw_progress(pbw_self(), ++pbw_test_n); }
static void pbw_test_leave(void) { pbw_leave(pbw_self()); }
static void pbw_test_watch_count(int on) { pbw_watch_count(pbw_self(), on ? &pbw_test_count : NULL); }
static void pbw_test_count_add(void) { atomic_fetch_add(&pbw_test_count, 1); }
*/
import "C"

// Hooks for the tests (watch_test.go): they drive the calling thread's
// slot as a trampoline or a C-thread loop does.
func testEnter(op int)       { C.pbw_test_enter(C.int(op)) }
func testTick()              { C.pbw_test_tick() }
func testLeave()             { C.pbw_test_leave() }
func testWatchCount(on bool) { C.pbw_test_watch_count(map[bool]C.int{false: 0, true: 1}[on]) }
func testCountAdd()          { C.pbw_test_count_add() }

const testOpPark, testOpLoop = C.PBW_PARK, C.PBW_LOOP_LOCK
