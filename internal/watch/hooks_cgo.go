//go:build (linux || darwin) && cgo

package watch

/*
#include "hooks.h"
#include "watch.h"
*/
import "C"

// Hooks for the tests (watch_test.go): they drive the calling thread's
// slot as a trampoline or a C-thread loop does.
func testEnter(op int) { C.pbwd_test_enter(C.int(op)) }
func testTick()        { C.pbwd_test_tick() }
func testLeave()       { C.pbwd_test_leave() }
func testCountAdd()    { C.pbwd_test_count_add() }
func testToldStop()    { C.pbwd_test_told_stop() }

const testOpPark, testOpLoop, testOpOwnLock = C.PBWD_PARK, C.PBWD_LOOP_LOCK, C.PBWD_OWN_LOCK
