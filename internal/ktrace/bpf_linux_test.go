package ktrace

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"
)

// The eBPF recorder on this machine, when it can run: a thread that sleeps
// and is woken is recorded switching out asleep and in again, with its
// sched_waking; the records decode with this process's TID and clock.
// Skipped where tracing is unavailable (not root, no BTF): CI containers.
func TestBPFRecordsSleeps(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	var cpus []int // every CPU, a ring each (up to bpfMaxRings)
	for c := range min(runtime.NumCPU(), bpfMaxRings) {
		cpus = append(cpus, c)
	}
	if runtime.NumCPU() > bpfMaxRings {
		cpus = nil // one ring for all
	}
	s, err := Open(Options{TIDs: []int{tid}, CPUs: cpus, Kinds: []Kind{Waking, Switch, CPUIdle}, BytesPerCPU: 1 << 20, Recorder: RecorderBPF})
	if IsUnavailable(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Recorder != RecorderBPF {
		t.Fatalf("recorder %q", s.Recorder)
	}
	m0 := mono(t)
	if err := s.Enable(); err != nil {
		t.Fatal(err)
	}
	// A real nanosleep of this thread, not time.Sleep: time.Sleep parks the
	// goroutine and its locked M sleeps on a note, which a timer that has
	// already fired (a loaded machine, more than a millisecond between the
	// park and the M's sleep) wakes before it sleeps: fewer than 5 sleeps.
	for range 5 {
		ts := unix.NsecToTimespec(time.Millisecond.Nanoseconds())
		for unix.Nanosleep(&ts, &ts) == unix.EINTR {
		}
	}
	if err := s.Disable(); err != nil {
		t.Fatal(err)
	}
	m1 := mono(t)
	ev := s.Drain(nil)
	var out, in, woken int
	for _, e := range ev {
		switch {
		case e.Kind == Switch && e.A == int64(tid) && e.C&0x7f != 0:
			out++
		case e.Kind == Switch && e.B == int64(tid):
			in++
		case e.Kind == Waking && e.A == int64(tid):
			woken++
		}
		if e.Time < m0 || e.Time > m1 {
			t.Fatalf("record %+v stamped outside [%d, %d] (CLOCK_MONOTONIC around the window)", e, m0, m1)
		}
	}
	if out < 5 || in < 5 || woken < 5 {
		t.Fatalf("%d records: %d switch-outs asleep, %d switch-ins, %d wakings of tid %d; want 5 of each", len(ev), out, in, woken, tid)
	}
	if s.Lost() != 0 {
		t.Fatalf("lost %d", s.Lost())
	}
}

func mono(t *testing.T) int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		t.Fatal(err)
	}
	return ts.Nano()
}

// The programs assemble (every jump finds its label) with and without a
// CPU filter, without loading anything: runs anywhere.
func TestBPFProgramsAssemble(t *testing.T) {
	for _, k := range bpfKinds {
		for _, cpus := range [][]int{nil, {0, 1}} {
			in, name := bpfProgram(k, []int{100, 101}, cpus, 1264, cpus, 1000, 3, 4)
			if err := in.Marshal(io.Discard, binary.LittleEndian); err != nil {
				t.Errorf("%s (cpus %v): %v", name, cpus, err)
			}
		}
	}
}

// A record decodes field by field: pids signed, cpu_idle's state unsigned
// (IdleExit is (u32)-1), the kind and the CPU from their bytes.
func TestDecodeBPF(t *testing.T) {
	rec := func(kind Kind, a, b uint32, c uint64) []byte {
		r := make([]byte, bpfRecordSize)
		binary.LittleEndian.PutUint64(r[0:], 123456789)
		binary.LittleEndian.PutUint32(r[8:], 4242)
		binary.LittleEndian.PutUint16(r[12:], 1)
		r[14] = byte(kind)
		binary.LittleEndian.PutUint32(r[16:], a)
		binary.LittleEndian.PutUint32(r[20:], b)
		binary.LittleEndian.PutUint64(r[24:], c)
		return r
	}
	e, ok := decodeBPF(rec(Switch, 17, 0, 1))
	if want := (Event{Time: 123456789, TID: 4242, CPU: 1, Kind: Switch, A: 17, B: 0, C: 1}); !ok || e != want {
		t.Fatalf("switch: %+v, want %+v", e, want)
	}
	e, ok = decodeBPF(rec(CPUIdle, 0xffffffff, 1, 0))
	if !ok || e.A != IdleExit || e.B != 1 {
		t.Fatalf("idle exit: %+v", e)
	}
	if _, ok := decodeBPF(rec(Lost, 0, 0, 0)); ok {
		t.Fatal("a record of a kind the programs do not write decoded")
	}
	if _, ok := decodeBPF(rec(Waking, 1, 0, 0)[:20]); ok {
		t.Fatal("a short record decoded")
	}
}

// Auto falls back to perf, with a note saying why, for what the eBPF
// recorder does not record; an unknown recorder is an error.
func TestAutoFallsBackToPerf(t *testing.T) {
	s, err := Open(Options{TIDs: []int{unix.Gettid()}, Kinds: []Kind{Switch, FutexEnter}, BytesPerCPU: 1 << 16, Recorder: RecorderAuto})
	if IsUnavailable(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Recorder != RecorderPerf || len(s.Notes) == 0 || !strings.Contains(s.Notes[0], "recorded through perf, not eBPF: event syscalls:sys_enter_futex") {
		t.Fatalf("recorder %q, notes %q", s.Recorder, s.Notes)
	}
	if _, err := Open(Options{Recorder: "bpftrace"}); err == nil || !strings.Contains(err.Error(), `recorder "bpftrace"`) {
		t.Fatalf("unknown recorder: %v", err)
	}
}

// The slot a program takes is the counter's old value: the fetch-add
// reaches the kernel with its BPF_FETCH bit (fetchAdd), as the instruction
// set says (imm = BPF_ADD | BPF_FETCH = 0x01). Runs anywhere.
func TestBPFFetchAddMarshals(t *testing.T) {
	var b bytes.Buffer
	if err := (asm.Instructions{fetchAdd(asm.R9, asm.R1)}).Marshal(&b, binary.LittleEndian); err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint32(b.Bytes()[4:]); got != 0x01 {
		t.Fatalf("fetch-add's immediate %#x, want 0x01 (BPF_ADD | BPF_FETCH)", got)
	}
}

// A ring found full keeps its first records, counts the rest lost with
// the time of the first one dropped, and starts empty after the drain.
// Rings of 4 records; skipped where tracing is unavailable.
func TestBPFRingFull(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	s, err := Open(Options{TIDs: []int{tid}, Kinds: []Kind{Switch}, BPFBytes: 4 * bpfRecordSize, Recorder: RecorderBPF})
	if IsUnavailable(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sleeps := func() {
		for range 5 {
			ts := unix.NsecToTimespec(time.Millisecond.Nanoseconds())
			for unix.Nanosleep(&ts, &ts) == unix.EINTR {
			}
		}
	}
	for round := range 2 {
		m0 := mono(t)
		if err := s.Enable(); err != nil {
			t.Fatal(err)
		}
		sleeps()
		if err := s.Disable(); err != nil {
			t.Fatal(err)
		}
		m1 := mono(t)
		lost0 := s.Lost()
		ev := s.Drain(nil)
		var kept, lost int
		for _, e := range ev {
			switch {
			case e.Kind == Lost:
				lost++
				if e.Time < m0 || e.Time > m1 || e.A <= 0 {
					t.Fatalf("round %d: lost event %+v outside [%d, %d] or without a count", round, e, m0, m1)
				}
			case e.Time < m0 || e.Time > m1:
				t.Fatalf("round %d: record %+v outside [%d, %d]", round, e, m0, m1)
			default:
				kept++
			}
		}
		if kept != 4 || lost != 1 || s.Lost() <= lost0 {
			t.Fatalf("round %d: %d records kept, %d lost events, lost count %d -> %d; want 4 kept of 10 or more switches, one lost event", round, kept, lost, lost0, s.Lost())
		}
	}
}
