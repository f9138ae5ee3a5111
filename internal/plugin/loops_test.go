//go:build linux && cgo

package plugin

import (
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/watch"
)

// ABI version 2: the loops a library owns (include/parkbench.h, struct
// pb_loops; include/parkbench_loops.h's templates).

// v2lib is a version-2 library of one implementation, "t-own": a pthread
// mutex and testdata/misbehave.h's token parker, with the lock loop
// lockLoop (a C expression of a, the struct pb_lock_loop), the self-wake
// loop selfwake (of p, word, pairs, count) and the templates' ping-pong
// wait; tableSize and loopsSize are the size fields.
func v2lib(lockLoop, selfwake, tableSize, loopsSize string) string {
	return lib(`
#include "parkbench_loops.h"
static uint64_t lk_loop(const struct pb_lock_loop *a) { ` + lockLoop + ` }
static uint64_t sw_loop(void *p, const uint32_t *word, uint64_t pairs, uint64_t *count) { (void)word; ` + selfwake + ` }
static void pp_wait(void *p, const uint32_t *flag) { pb_pingpong_wait_token_run(p, flag, tp_park); }
static const struct pb_parker pk = {tp_new, NULL, tp_park, tp_park_until, tp_unpark, tp_free};
static const struct pb_mutex mx = {mx_new, mx_lock, NULL, mx_unlock, free};
static const struct pb_loops lp = {` + loopsSize + `, lk_loop, sw_loop, pp_wait};
static const struct pb_impl impls[] = {{"t-own", "owns its loops", 1, &pk, &mx, NULL, NULL}};
static const struct pb_loops *const loops[] = {&lp};
static const struct pb_plugin table = {PARKBENCH_ABI_VERSION, "t", "t 2", 1, impls, ` + tableSize + `, loops};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
`)
}

const (
	goodLockLoop = `return pb_lock_loop_run(a, mx_lock, mx_unlock);`
	goodSelfwake = `return pb_selfwake_token_run(p, pairs, count, tp_unpark, tp_park);`
)

func goodV2() string { return v2lib(goodLockLoop, goodSelfwake, "sizeof table", "sizeof lp") }

// ownImpl loads src and returns its one implementation, registered.
func ownImpl(t *testing.T, src string) ext.Impl {
	t.Helper()
	impls, err := loadAndRegister(t, buildSO(t, src))
	if err != nil {
		t.Fatal(err)
	}
	return impls[0]
}

func lockRun(x ext.Impl, threads int, work int) (cref.LockRunResult, error) {
	return cref.LockRun(cref.LockRunConfig{Mode: cref.LockOwn, Plugin: x.C, Pattern: cref.PatternLoop, Threads: threads,
		Locks: 1, WorkIn: work, Duration: 50 * time.Millisecond, SampleEvery: 64, Seed: 1})
}

// A version-2 library's own loops load and run, and their figures add up.
func TestOwnLoopsRun(t *testing.T) {
	x := ownImpl(t, goodV2())
	if x.Own != (ext.Loops{Lock: true, Selfwake: true, PingPong: true}) {
		t.Fatalf("Own = %+v", x.Own)
	}
	for _, work := range []int{0, 2} {
		res, err := lockRun(x, 2, work)
		if err != nil {
			t.Fatalf("work %d: %v", work, err)
		}
		if res.Counts[0] == 0 || res.Counts[1] == 0 || res.Locked != res.Checked || len(res.Waits) == 0 {
			t.Fatalf("work %d: %+v", work, res)
		}
	}
	out := make([]int64, 20)
	if err := cref.SelfwakeOwn(x.C, 100, out); err != nil {
		t.Fatal(err)
	}
	p, err := cref.OpenPluginOwn(x.C, [2]int{-1, -1}, 200, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if r := p.Round(200); len(r.Samples) != 400 {
		t.Fatalf("ping-pong with its own wait: %d samples", len(r.Samples))
	}
}

// The version-2 structs' sizes and what each loop runs on are checked at
// load, each refusal naming what is wrong; a version-1 table is read
// without them (TestLoadGood and the others build version-1 tables).
func TestOwnLoopsRefusedAtLoad(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"table size", v2lib(goodLockLoop, goodSelfwake, "8", "sizeof lp"), "the table's size field is 8 bytes, less than version 2's struct pb_plugin"},
		{"table size zero (a version-1 source built against version 2's header)",
			strings.Replace(v2lib(goodLockLoop, goodSelfwake, "sizeof table", "sizeof lp"), `impls, sizeof table, loops}`, `impls}`, 1),
			"the table's size field is 0 bytes"},
		{"loops size", v2lib(goodLockLoop, goodSelfwake, "sizeof table", "4"), `implementation "t-own": its loops' size field is 4 bytes, less than version 2's struct pb_loops`},
		{"lock loop, no mutex", strings.Replace(goodV2(), `&pk, &mx, NULL, NULL`, `&pk, NULL, NULL, NULL`, 1), `implementation "t-own" has its own lock loop but no mutex`},
		{"self-wake loop, no parker", strings.Replace(goodV2(), `&pk, &mx, NULL, NULL`, `NULL, &mx, NULL, NULL`, 1), `implementation "t-own" has its own self-wake or ping-pong loop but no parker`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			so := buildSO(t, tc.src)
			_, err := loadAndRegister(t, so)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), so) {
				t.Fatalf("Load: %v; want an error naming %s and containing %q", err, so, tc.want)
			}
		})
	}
}

// A loop whose figures do not add up is refused by name: its count, its
// sampled waits, the lock's counter (mutual exclusion), the self-wake's
// pairs.
func TestOwnLoopsMisbehaving(t *testing.T) {
	for _, tc := range []struct{ name, lockLoop, want string }{
		{"count", `return pb_lock_loop_run(a, mx_lock, mx_unlock) + 1;`, "but its count word says"},
		{"waits", `struct pb_lock_loop b = *a; int64_t h[PB_HIST_BUCKETS]; b.hist = h; return pb_lock_loop_run(&b, mx_lock, mx_unlock);`,
			"sampled waits, not"},
		// One check per thread lands outside the lock's counter: as the
		// counter reads when two holders overlapped.
		{"exclusion", `struct pb_lock_loop b = *a; int64_t mine = 0; b.guarded = &mine; uint64_t n = pb_lock_loop_run(&b, mx_lock, mx_unlock);
			mx_lock(a->mutex); *a->guarded += mine - 1; mx_unlock(a->mutex); return n;`,
			"broke mutual exclusion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := ownImpl(t, v2lib(tc.lockLoop, goodSelfwake, "sizeof table", "sizeof lp"))
			_, err := lockRun(x, 2, 1)
			if err == nil || !strings.Contains(err.Error(), `implementation "t-own": its own lock loop`) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LockRun: %v; want a refusal naming t-own's loop and containing %q", err, tc.want)
			}
		})
	}
	t.Run("selfwake", func(t *testing.T) {
		x := ownImpl(t, v2lib(goodLockLoop, `return pb_selfwake_token_run(p, pairs - 1, count, tp_unpark, tp_park) + 1;`, "sizeof table", "sizeof lp"))
		err := cref.SelfwakeOwn(x.C, 100, make([]int64, 10))
		if err == nil || !strings.Contains(err.Error(), `implementation "t-own": its own self-wake loop, asked for 100 pairs, returned 100 and counted 99`) {
			t.Fatalf("SelfwakeOwn: %v", err)
		}
	})
}

// A lock loop that goes on after the stop flag (counting, so that it
// looks alive) is stopped by the watchdog, by name.
func TestOwnLockLoopIgnoringStop(t *testing.T) {
	x := ownImpl(t, v2lib(`
	uint64_t n = pb_lock_loop_run(a, mx_lock, mx_unlock);
	for (;;) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
		__atomic_store_n(a->count, ++n, __ATOMIC_RELAXED);
	}`, goodSelfwake, "sizeof table", "sizeof lp"))
	hung := make(chan string, 16)
	defer watch.Set(time.Second, func(msg string) {
		if strings.Contains(msg, `"t-own"`) {
			select {
			case hung <- msg:
			default:
			}
		}
	})()
	watch.Start()
	go func() {
		// Its threads stay in the library for the rest of the test binary
		// (sleeping): LockRun never returns.
		_, _ = lockRun(x, 1, 0)
	}()
	select {
	case msg := <-hung:
		if !strings.Contains(msg, "in its own lock loop, which did not return when the stop flag was set") {
			t.Fatalf("watchdog message %q does not say the loop ignored its stop flag", msg)
		}
	case <-time.After(2 * time.Minute): // a liveness bound, generous for a loaded machine
		t.Fatal("the watchdog did not stop a lock loop that ignores its stop flag")
	}
}
