package wake

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/machine"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/results"
)

// hashOp is the hash bench's operation on one key: the kernel's
// FUTEX_WAIT that fails at once (perf bench futex hash), or the parking
// lot's Park whose validate fails at once (lot's bucket table).
type hashOp struct {
	kernel, shared bool
}

// invalidKey is the validate of the lot's hash bench: under the bucket
// lock, refuse to park, as FUTEX_WAIT with the wrong value refuses.
func invalidKey() bool { return false }

// hashRound is one hash round's figures.
type hashRound struct {
	ops        []int64 // per thread
	elapsedNs  int64   // from the start signal to the stop signal
	unexpected int64   // operations that did not fail at once (a kernel wait that blocked or a park that parked)
}

// runHash runs one hash round: n threads, thread i pinned to cpus[i], each
// with its own futexes words, loop over them for d (perf's workerfn,
// tools/perf/bench/futex-hash.c:85-97 at commit f057b57270c2: the stop flag
// is read once per pass over the words, as perf's `done`).
func runHash(ctx context.Context, op *hashOp, n, futexes int, d time.Duration, cpus []int) (hashRound, error) {
	var (
		readyN  atomic.Int64
		start   = make(chan struct{})
		stop    atomic.Bool
		wg      sync.WaitGroup
		pinErr  atomic.Pointer[error]
		res     = hashRound{ops: make([]int64, n)}
		unexpct atomic.Int64
	)
	sc := scope(op.shared)
	for i := 0; i < n; i++ {
		wg.Add(1)
		osthread.Go(func() {
			defer wg.Done()
			if cpus != nil && cpus[i] >= 0 {
				if err := osthread.Pin(cpus[i]); err != nil {
					pinErr.CompareAndSwap(nil, &err)
				}
			}
			words := make([]atomic.Int32, futexes) // zeroed: never 1234
			var ops, bad int64
			readyN.Add(1)
			<-start
			for !stop.Load() {
				if op.kernel {
					for j := range words {
						if !waitFails(&words[j], sc) {
							bad++
						}
					}
				} else {
					for j := range words {
						if lot.Park(unsafe.Pointer(&words[j]), invalidKey, nil, nil, lot.DefaultParkToken, time.Time{}).Kind != lot.ParkInvalid {
							bad++
						}
					}
				}
				ops += int64(len(words))
			}
			res.ops[i] = ops
			unexpct.Add(bad)
		})
	}
	for readyN.Load() < int64(n) {
		time.Sleep(50 * time.Microsecond)
	}
	t0 := monoclock.Nanotime()
	close(start)
	// Sleep out the round in steps, so that SIGINT ends it within 50 ms.
	for end := t0 + int64(d); ; {
		left := end - monoclock.Nanotime()
		if left <= 0 || ctx.Err() != nil {
			break
		}
		time.Sleep(min(time.Duration(left), 50*time.Millisecond))
	}
	stop.Store(true)
	res.elapsedNs = monoclock.Nanotime() - t0
	wg.Wait()
	res.unexpected = unexpct.Load()
	if p := pinErr.Load(); p != nil {
		return res, fmt.Errorf("pinning a hash thread: %w", *p)
	}
	return res, ctx.Err()
}

// runHashGroup runs the hash configurations of one thread count,
// round-interleaved.
func runHashGroup(ctx context.Context, group []cfgSpec, o Options, records []*results.Config, report func(cfgSpec, int)) error {
	vals := make([][]map[string]float64, len(group))
	for k, c := range group {
		cfg := records[k]
		cfg.Params["futexes"] = strconv.Itoa(o.Futexes)
		cfg.Params["hash_time"] = o.HashTime.String()
		if c.im.hash.kernel {
			cfg.Params["table"] = "kernel futex hash"
		} else {
			cfg.Params["table"] = "parking lot buckets"
		}
	}
	err := interleaved(ctx, o.HashRounds, group, report, func(r, k int, c cfgSpec) error {
		cfg := records[k]
		hr, err := runHash(ctx, c.im.hash, c.n, o.Futexes, o.HashTime, roundRobin(c.n))
		if err != nil {
			return err
		}
		if r == 0 {
			if mode, slots := machine.FutexHash(); mode != "" {
				cfg.Params["futex_hash"] = mode
				cfg.Params["futex_hash_slots"] = strconv.Itoa(slots)
			}
		}
		secs := float64(hr.elapsedNs) / 1e9
		var per []float64
		var total float64
		for _, ops := range hr.ops {
			per = append(per, float64(ops)/secs)
			total += float64(ops) / secs
		}
		mean, sem := meanSEM(per)
		m := map[string]float64{MOpsPerSec: mean, MOpsSEM: sem, MOpsTotal: total, MUnexpected: float64(hr.unexpected), mElapsed: float64(hr.elapsedNs)}
		if mean > 0 {
			m[MNsPerOp] = 1e9 / mean
		}
		for i, v := range per {
			m[threadOpsKey(i)] = v
		}
		cfg.Rounds = append(cfg.Rounds, results.Round{Metrics: m})
		vals[k] = append(vals[k], m)
		if hr.unexpected > 0 {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("round %d: %d operations did not fail at once (a wait that slept, or a park that parked)", r+1, hr.unexpected))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, cfg := range records {
		cfg.Summary = driver.MedianOfRounds(vals[k])
		for key := range cfg.Summary {
			if strings.HasPrefix(key, mThreadOps) || key == mElapsed {
				delete(cfg.Summary, key)
			}
		}
	}
	return nil
}

// mThreadOps prefixes a hash round's per-thread operations per second
// (ops_per_sec_thread_000, ...): perf's "[thread %2d] ... ops/sec" lines.
const mThreadOps = "ops_per_sec_thread_"

// threadOpsKey is thread i's key in a hash round's metrics.
func threadOpsKey(i int) string { return fmt.Sprintf("%s%03d", mThreadOps, i) }
