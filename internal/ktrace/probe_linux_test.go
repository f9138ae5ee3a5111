package ktrace

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkProbe measures what each recorder adds to a futex ping-pong
// between two threads (the anatomy's wake, without parkbench's harness):
// per round trip, the wall time (ns/op), the CPU time of the two threads
// (cpu-ns/op: the tracepoints' work in their context, which a loaded
// machine does not inflate as it does the wall time) and the records
// written (records/op). Sub-benchmarks: none, perf, ebpf, on one CPU
// (same-core: every switch in the pair's own context) and on two
// (cross-core: the anatomy's target). Run interleaved, at a fixed count
// (the rings are sized for it, as latency sizes them for its rounds):
//
//	go test -run '^$' -bench Probe -benchtime 20000x -count 5 ./internal/ktrace/
//
// PARKBENCH_PROBE_FIFO=1 runs the two threads at SCHED_FIFO priority 1
// (put back to SCHED_OTHER before they end): on a loaded machine they then
// preempt the load instead of queueing behind it, so the difference the
// tracing makes shows through; the wakes then find a busy CPU, not an idle
// one (no cpu_idle records). Skipped where tracing is unavailable (not
// root, no tracefs or BTF) or with fewer than two CPUs for cross-core.
func BenchmarkProbe(b *testing.B) {
	for _, place := range []struct {
		name string
		cpus [2]int
	}{{"same-core", [2]int{0, 0}}, {"cross-core", [2]int{0, 1}}} {
		for _, rec := range []string{"none", RecorderPerf, RecorderBPF} {
			b.Run(place.name+"/"+rec, func(b *testing.B) {
				if place.cpus[1] >= runtime.NumCPU() {
					b.Skip("needs two CPUs")
				}
				benchProbe(b, place.cpus, rec)
			})
		}
	}
}

func benchProbe(b *testing.B, cpus [2]int, rec string) {
	var words [2]uint32
	var tids [2]int
	var cpuNs [2]int64
	var ready, start, done sync.WaitGroup
	var failed atomic.Value
	ready.Add(2)
	start.Add(1)
	done.Add(2)
	n := b.N
	for me := range 2 {
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var set unix.CPUSet
			set.Set(cpus[me])
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				failed.Store(err.Error())
			}
			if os.Getenv("PARKBENCH_PROBE_FIFO") == "1" {
				if err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 1}, 0); err != nil {
					failed.Store("SCHED_FIFO: " + err.Error())
				}
				defer unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_NORMAL}, 0)
			}
			tids[me] = unix.Gettid()
			ready.Done()
			start.Wait()
			c0 := threadCPU()
			mine, other := &words[me], &words[1-me]
			for i := range n {
				if me == 0 || i > 0 {
					atomic.StoreUint32(other, 1)
					futex(other, futexWake, 1)
				}
				for atomic.LoadUint32(mine) == 0 {
					futex(mine, futexWait, 0)
				}
				atomic.StoreUint32(mine, 0)
			}
			if me == 1 { // the last reply
				atomic.StoreUint32(other, 1)
				futex(other, futexWake, 1)
			}
			cpuNs[me] = threadCPU() - c0
		}()
	}
	ready.Wait()
	if f := failed.Load(); f != nil {
		start.Done()
		done.Wait()
		b.Skip(f)
	}
	var s *Session
	if rec != "none" {
		var err error
		traced := []int{cpus[0]}
		if cpus[1] != cpus[0] {
			traced = append(traced, cpus[1])
		}
		// As latency --anatomy sizes them (ringBytes, bpfRingBytes).
		s, err = Open(Options{TIDs: tids[:], CPUs: traced, Kinds: []Kind{Waking, Switch, CPUIdle},
			BytesPerCPU: min(max(2048*n, 1<<20), 256<<20), BPFBytes: min(max(1024*n, 1<<20), 256<<20), Recorder: rec})
		if IsUnavailable(err) {
			start.Done()
			done.Wait()
			b.Skip(err)
		}
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if err := s.Enable(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	start.Done()
	done.Wait()
	b.StopTimer()
	b.ReportMetric(float64(cpuNs[0]+cpuNs[1])/float64(n), "cpu-ns/op")
	if s != nil {
		if err := s.Disable(); err != nil {
			b.Fatal(err)
		}
		ev := s.Drain(nil)
		if s.Lost() > 0 || s.Full() > 0 {
			b.Fatalf("%d records lost, rings full %d times", s.Lost(), s.Full())
		}
		b.ReportMetric(float64(len(ev))/float64(n), "records/op")
	}
}

// futex(2) operations, private (FUTEX_WAIT 0, FUTEX_WAKE 1,
// FUTEX_PRIVATE_FLAG 128).
const (
	futexWait = 0 | 128
	futexWake = 1 | 128
)

func futex(addr *uint32, op int, val uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), uintptr(op), uintptr(val), 0, 0, 0)
}

func threadCPU() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return ts.Nano()
}
