//go:build (linux || darwin) && cgo

// The tests' hooks; see hooks.h.

#include <stddef.h>

#include "hooks.h"
#include "watch.h"

static pbwd_foreign pbwd_test_f;
static uint64_t pbwd_test_n;

void pbwd_test_enter(int op) {
	if (pbwd_test_f.who.impl == NULL)
		pbwd_foreign_init(&pbwd_test_f, NULL, "test-impl", "test-lib");
	pbwd_enter(pbwd_self(), &pbwd_test_f.sites[op]);
}

void pbwd_test_tick(void) { pbwd_progress(pbwd_self(), ++pbwd_test_n); }

void pbwd_test_leave(void) { pbwd_leave(pbwd_self()); }

void pbwd_test_count_add(void) { atomic_fetch_add(&pbwd_self()->progress, 1); }

void pbwd_test_told_stop(void) { pbwd_told_stop(pbwd_self()); }
