// C reference ping-pong for E12; see cref.c.
#include <stdint.h>

// CREF_FUTEX runs on Linux, CREF_ULOCK on darwin (see cref_os.h).
// CREF_PLUGIN calls a plugin's function pointers (include/parkbench.h):
// its parker, or else its lot operations.
// CREF_OWN is CREF_PLUGIN with the library's own wait (ABI version 2,
// struct pb_loops's pingpong_wait) in place of the parker's calls.
enum { CREF_FUTEX = 0, CREF_SPIN = 1, CREF_ULOCK = 2, CREF_PLUGIN = 3, CREF_OWN = 4 };

struct pbwd_foreign;

// What one side measured in a round.
typedef struct {
	uint64_t nosleep;   // waits that returned without sleeping
	int64_t csw;        // this thread's RUSAGE_THREAD nvcsw+nivcsw delta
	int64_t same_cpu;   // sampled wakes where waker and woken shared a CPU
	int64_t cpu_samples;
	long done;          // round trips completed (< n when cref_stop cut the round)
} cref_side;

typedef struct cref_pair cref_pair;

// cref_open starts the two threads, pinned to cpu0 / cpu1 (-1: unpinned),
// with room for cap round trips per round. NULL and *err on failure.
// CREF_PLUGIN runs f's parker (internal/watch's pbwd_foreign), NULL otherwise.
cref_pair *cref_open(int mode, const struct pbwd_foreign *f, int cpu0, int cpu1, int sample_cpu, long gap_ns, long cap, int *err);
// cref_pin_error is side me's pthread_setaffinity_np result (valid after
// the first round).
int cref_pin_error(cref_pair *p, int me);
// cref_tid is side me's kernel thread id (valid after the first round; -1
// where the OS has none).
int cref_tid(cref_pair *p, int me);
// cref_enable_ends makes every later round record each sample's woken-side
// clock reading (CLOCK_MONOTONIC ns) at cref_ends(p), laid out as the
// samples; 0 or ENOMEM.
int cref_enable_ends(cref_pair *p);
int64_t *cref_ends(cref_pair *p);
// cref_round runs n round trips and returns both sides' figures and the
// sample buffer (2n one-way latencies, ns), valid until the next call.
void cref_round(cref_pair *p, long n, cref_side *res0, cref_side *res1, int64_t **samples);
// cref_stop makes the running round (and every later one) end within one
// round trip; any thread may call it, once the pair is open and until
// cref_close. A stopped pair can only be closed.
void cref_stop(cref_pair *p);
void cref_close(cref_pair *p);
long cref_selfwake(int mode, long pairs, long nsamples, int64_t *out);
// cref_selfwake_plugin is cref_selfwake with f's parker (or its lot); it
// counts no slept waits (the library's secret).
void cref_selfwake_plugin(const struct pbwd_foreign *f, long pairs, long nsamples, int64_t *out);
// cref_selfwake_own is cref_selfwake_plugin with the library's own loop
// (struct pb_loops's selfwake), called once per sample: 0, or 1 when a call
// did not do pairs pairs by its return value or its count word (*got is
// then what it said, *counted what the word said).
int cref_selfwake_own(const struct pbwd_foreign *f, long pairs, long nsamples, int64_t *out, uint64_t *got,
		uint64_t *counted);
// cref_watch_init gives the C-thread rows internal/watch's pbwd_self.
void cref_watch_init(void *self);
