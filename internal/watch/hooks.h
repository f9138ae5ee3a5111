// The tests' hands on the calling thread's slot (hooks.c, hooks_cgo.go,
// watch_test.go): they drive it as a trampoline or a C-thread loop does.
#ifndef PB_WATCH_HOOKS_H
#define PB_WATCH_HOOKS_H

void pbwd_test_enter(int op);
void pbwd_test_tick(void);
void pbwd_test_leave(void);
// pbwd_test_count_add bumps the slot's progress word as a library's own
// loop (ABI version 2) does.
void pbwd_test_count_add(void);
// pbwd_test_told_stop marks the slot as a harness does when it sets the
// stop flag of a library's own loop.
void pbwd_test_told_stop(void);

#endif
