//go:build (linux || darwin) && cgo

package watch

/*
#include <stdlib.h>
#include "watch.h"

// The tests' hands on the calling thread's slot (hooks_cgo.go).
static pbwd_foreign pbwd_test_f;
static void pbwd_test_enter(int op) {
	if (pbwd_test_f.who.impl == NULL)
		pbwd_foreign_init(&pbwd_test_f, NULL, "test-impl", "test-lib");
	pbwd_enter(pbwd_self(), &pbwd_test_f.sites[op]);
}
static uint64_t pbwd_test_n;
static void pbwd_test_tick(void) { pbwd_progress(pbwd_self(), ++pbwd_test_n); }
static void pbwd_test_leave(void) { pbwd_leave(pbwd_self()); }
// A library's own loop (ABI version 2) counts in the slot's progress word.
static void pbwd_test_count_add(void) { atomic_fetch_add(&pbwd_self()->progress, 1); }
*/
import "C"

// Hooks for the tests (watch_test.go): they drive the calling thread's
// slot as a trampoline or a C-thread loop does.
func testEnter(op int) { C.pbwd_test_enter(C.int(op)) }
func testTick()        { C.pbwd_test_tick() }
func testLeave()       { C.pbwd_test_leave() }
func testCountAdd()    { C.pbwd_test_count_add() }

const testOpPark, testOpLoop = C.PBWD_PARK, C.PBWD_LOOP_LOCK
