package ktrace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
)

// The eBPF recorder (docs/anatomy.md, "Mechanism"): one small program per
// tracepoint, attached to the tracepoint as a BTF-typed raw tracepoint
// (BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP: the tracepoint's own arguments,
// no trace record assembled; a task's pid read with one typed load), which
// filters in the kernel as the perf recorder's filters do and writes one
// 32-byte record into a BPF ring buffer (its CPU's: ringCPUs), submitted
// with BPF_RB_NO_WAKEUP: nothing is woken, the rings are read between
// rounds. What it spares each
// traced event is perf's sample path: the trace record assembled
// (sched_switch's two comms), the filter interpreted, the sample prepared
// and copied into a perf ring. The programs are written here with
// cilium/ebpf's asm package (no compiler), for the three events the
// latency join reads.
//
// A record (little-endian, bpfRecord):
//
//	0  u64 time  bpf_ktime_get_ns: CLOCK_MONOTONIC, as perf's use_clockid
//	8  u32 tid   the current thread (bpf_get_current_pid_tgid's low half)
//	12 u16 cpu   bpf_get_smp_processor_id
//	14 u8  kind  Kind
//	16 u32 a     sched_waking: pid woken; sched_switch: prev_pid; cpu_idle: state
//	20 u32 b     sched_switch: next_pid; cpu_idle: cpu_id
//	24 u64 c     sched_switch: prev_state as the tracepoint's format reports it
//
// Events and the kernel's state: the programs are loaded and attached for
// a traced round only (Enable attaches, Disable detaches) and every
// descriptor is closed by Close; the kernel detaches and frees them when the
// process exits, also on SIGKILL. Nothing is written to tracefs.

const bpfRecordSize = 32

// bpfKinds are the events the eBPF recorder records.
var bpfKinds = []Kind{Waking, Switch, CPUIdle}

// bpfMaxTIDs bounds the TIDs filtered by immediate compares (two per TID
// on sched_switch); a longer list is left to the perf recorder.
const bpfMaxTIDs = 16

// rbNoWakeup is BPF_RB_NO_WAKEUP: submit without waking a reader.
const rbNoWakeup = 1

// kernelBTF reads what the programs need of the kernel's BTF
// (/sys/kernel/btf/vmlinux, mapped and decoded lazily by cilium/ebpf),
// once: task_struct's pid offset (read from the task pointers the
// scheduler's tracepoints pass), whether sched_switch passes prev_state
// (Linux 5.18 and later: TP_PROTO(preempt, prev, next, prev_state)), and the
// spec itself, which every program load reads for its tracepoint's types
// (loaded again for each, it costs ~100 ms a round).
var kernelBTF = sync.OnceValues(func() (kernelLayout, error) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return kernelLayout{}, fmt.Errorf("kernel BTF: %w", err)
	}
	var ts *btf.Struct
	if err := spec.TypeByName("task_struct", &ts); err != nil {
		return kernelLayout{}, fmt.Errorf("kernel BTF: %w", err)
	}
	l := kernelLayout{pidOffset: -1, spec: spec}
	for _, m := range ts.Members {
		if m.Name == "pid" {
			l.pidOffset = int(m.Offset / 8)
		}
	}
	if l.pidOffset < 0 {
		return l, errors.New("kernel BTF: task_struct has no pid")
	}
	var td *btf.Typedef
	if spec.TypeByName("btf_trace_sched_switch", &td) == nil {
		if p, ok := td.Type.(*btf.Pointer); ok {
			fp, ok := p.Target.(*btf.FuncProto)
			l.switchState = ok && len(fp.Params) == 5 // the context pointer first
		}
	}
	return l, nil
})

type kernelLayout struct {
	pidOffset   int
	switchState bool
	spec        *btf.Spec
}

// bpfSession is the eBPF recorder's state.
type bpfSession struct {
	// rings: one per traced CPU (ringCPUs), or one for all.
	rings   []*ebpf.Map
	readers []*ringbuf.Reader
	lostMap *ebpf.Map
	progs   []*ebpf.Program
	names   []string
	links   []link.Link
	rec     ringbuf.Record
	lost    uint64
	full    int
}

// bpfMaxRings bounds the rings of one session: more CPUs than this share
// one ring.
const bpfMaxRings = 8

// ringCPUs is the CPU of each ring: o's CPUs when there are 1 to
// bpfMaxRings of them, each writing its own ring (a ring's reservation
// lock and producer position then stay in one CPU's cache: shared by the
// waker's and the wakee's CPUs, they would move between them on every
// record of a cross-core wake); nil for one ring shared by every CPU.
func ringCPUs(o Options) []int {
	if len(o.CPUs) == 0 || len(o.CPUs) > bpfMaxRings {
		return nil
	}
	return o.CPUs
}

// bpfUsable says why o cannot be recorded by eBPF ("" when it can).
func bpfUsable(o Options) string {
	for _, k := range o.Kinds {
		if !slices.Contains(bpfKinds, k) {
			return "event " + k.String() + " is recorded by perf only"
		}
	}
	if o.Kinds == nil {
		return "every event asked for"
	}
	if len(o.TIDs) == 0 || len(o.TIDs) > bpfMaxTIDs {
		return fmt.Sprintf("%d TIDs (the eBPF filter takes 1 to %d)", len(o.TIDs), bpfMaxTIDs)
	}
	l, err := kernelBTF()
	if err != nil {
		return err.Error()
	}
	if slices.Contains(o.Kinds, Switch) && !l.switchState {
		return "this kernel's sched_switch passes no prev_state (Linux 5.18 or later)"
	}
	return ""
}

// openBPF loads the programs and the ring for o; nothing is attached until
// enable. On error it closes what it opened.
func openBPF(o Options, ringBytes int) (_ *bpfSession, err error) {
	l, err := kernelBTF()
	if err != nil {
		return nil, err
	}
	b := &bpfSession{}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	cpus := ringCPUs(o)
	size := ringBytes
	if len(cpus) > 1 {
		size = pow2Pages(ringBytes/len(cpus), os.Getpagesize())
	}
	var ringFDs []int
	for range max(len(cpus), 1) {
		r, err := ebpf.NewMap(&ebpf.MapSpec{Name: "pb_anatomy", Type: ebpf.RingBuf, MaxEntries: uint32(size)})
		if err != nil {
			return nil, fmt.Errorf("BPF ring buffer of %d KiB: %w", size>>10, err)
		}
		b.rings = append(b.rings, r)
		ringFDs = append(ringFDs, r.FD())
		rd, err := ringbuf.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("BPF ring buffer reader: %w", err)
		}
		b.readers = append(b.readers, rd)
	}
	b.lostMap, err = ebpf.NewMap(&ebpf.MapSpec{Name: "pb_lost", Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 16, MaxEntries: 1})
	if err != nil {
		return nil, fmt.Errorf("BPF lost-record counter: %w", err)
	}
	for _, k := range bpfKinds {
		if !slices.Contains(o.Kinds, k) {
			continue
		}
		insns, name := bpfProgram(k, o.TIDs, o.CPUs, l.pidOffset, cpus, ringFDs, b.lostMap.FD())
		p, err := ebpf.NewProgramWithOptions(&ebpf.ProgramSpec{
			Name: "pb_" + name, Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp, AttachTo: name,
			Instructions: insns,
			// The kernel takes tracing programs that declare a
			// GPL-compatible license only.
			License: "Dual MIT/GPL",
		}, ebpf.ProgramOptions{KernelTypes: l.spec})
		if err != nil {
			return nil, fmt.Errorf("BPF program for %s: %w", name, err)
		}
		b.progs, b.names = append(b.progs, p), append(b.names, name)
	}
	return b, nil
}

func (b *bpfSession) enable() error {
	for i, p := range b.progs {
		l, err := link.AttachTracing(link.TracingOptions{Program: p})
		if err != nil {
			b.disable()
			return fmt.Errorf("--anatomy: attaching to %s: %w", b.names[i], err)
		}
		b.links = append(b.links, l)
	}
	return nil
}

func (b *bpfSession) disable() error {
	var first error
	for _, l := range b.links {
		if err := l.Close(); err != nil && first == nil {
			first = err
		}
	}
	b.links = nil
	return first
}

// drain appends every record in the rings to dst (each ring's in its
// order), and a Lost event when the programs found a ring full (from the
// first record dropped to the end: the wakes after it are not attributed).
func (b *bpfSession) drain(dst []Event) []Event {
	for _, rd := range b.readers {
		rd.SetDeadline(time.Now()) // read what is there, wait for nothing
		for {
			if err := rd.ReadInto(&b.rec); err != nil {
				break // os.ErrDeadlineExceeded: the ring is empty
			}
			if e, ok := decodeBPF(b.rec.RawSample); ok {
				dst = append(dst, e)
			}
		}
	}
	var key uint32
	var per [][16]byte
	if err := b.lostMap.Lookup(&key, &per); err == nil {
		first := int64(-1)
		var n uint64
		for cpu, v := range per {
			c := binary.LittleEndian.Uint64(v[0:])
			if c == 0 {
				continue
			}
			n += c
			if t := int64(binary.LittleEndian.Uint64(v[8:])); first < 0 || t < first {
				first = t
			}
			var zero [16]byte
			per[cpu] = zero
		}
		if n > 0 {
			b.lost += n
			b.full++
			dst = append(dst, Event{Kind: Lost, Time: first, A: int64(n), B: 1<<63 - 1, CPU: -1})
			_ = b.lostMap.Update(&key, per, ebpf.UpdateExist)
		}
	}
	return dst
}

// decodeBPF reads one record (the layout in the file's comment).
func decodeBPF(r []byte) (Event, bool) {
	if len(r) < bpfRecordSize {
		return Event{}, false
	}
	e := Event{
		Time: int64(binary.LittleEndian.Uint64(r[0:])),
		TID:  int32(binary.LittleEndian.Uint32(r[8:])),
		CPU:  int16(binary.LittleEndian.Uint16(r[12:])),
		Kind: Kind(r[14]),
	}
	a, bb := binary.LittleEndian.Uint32(r[16:]), binary.LittleEndian.Uint32(r[20:])
	switch e.Kind {
	case Waking, Switch:
		e.A, e.B = int64(int32(a)), int64(int32(bb)) // pids
	case CPUIdle:
		e.A, e.B = int64(a), int64(bb) // u32, as the format's fields
	default:
		return Event{}, false
	}
	e.C = int64(binary.LittleEndian.Uint64(r[24:]))
	return e, true
}

func (b *bpfSession) close() {
	if b == nil {
		return
	}
	b.disable()
	for _, rd := range b.readers {
		rd.Close()
	}
	b.readers = nil
	for _, p := range b.progs {
		p.Close()
	}
	b.progs = nil
	for _, r := range b.rings {
		r.Close()
	}
	b.rings = nil
	if b.lostMap != nil {
		b.lostMap.Close()
	}
}

// Registers of the programs: R6-R9 survive helper calls.
const (
	rA   = asm.R7 // the record's a
	rB   = asm.R8 // its b
	rC   = asm.R6 // its c (R6 holds the context until the arguments are read)
	rRec = asm.R9 // the reserved record
)

// Stack slots.
const (
	slotTime = -8  // the time, taken right after the filter
	slotKey  = -12 // the lost map's key
)

// bpfProgram is kind's program: read the arguments, filter (tids,
// cpus), stamp the time, reserve and fill a record, submit it without a
// wakeup; when the ring is full count the loss and the time of the first.
// It returns the instructions and the tracepoint's name.
//
// ringCPUs and ringFDs are the rings: the record goes to the ring of the
// CPU it is written on (one ring and no CPU: the only ring).
func bpfProgram(kind Kind, tids, cpus []int, pidOff int, ringCPUs, ringFDs []int, lostFD int) (asm.Instructions, string) {
	var in asm.Instructions
	// readPid loads the pid of the task the argument at argOff points to
	// into dst: a typed load (the verifier knows the argument is a
	// task_struct from the tracepoint's BTF; the JIT makes it a load
	// that cannot fault), no helper call.
	readPid := func(argOff int16, dst asm.Register) {
		in = append(in,
			asm.LoadMem(asm.R3, asm.R6, argOff, asm.DWord),
			asm.LoadMem(dst, asm.R3, int16(pidOff), asm.Word),
		)
	}
	// match jumps to "keep" when reg holds one of tids.
	match := func(reg asm.Register) {
		for _, t := range tids {
			in = append(in, asm.JEq.Imm32(reg, int32(t), "keep"))
		}
	}
	// cpuFilter returns (to "drop") unless reg holds one of cpus.
	cpuFilter := func(reg asm.Register) {
		if len(cpus) == 0 {
			return
		}
		for _, c := range cpus {
			in = append(in, asm.JEq.Imm32(reg, int32(c), "cpu_ok"))
		}
		in = append(in, asm.Ja.Label("drop"), asm.Mov.Reg(reg, reg).WithSymbol("cpu_ok"))
	}
	in = append(in, asm.Mov.Reg(asm.R6, asm.R1))
	var name string
	switch kind {
	case Waking:
		// TP_PROTO(struct task_struct *p)
		name = "sched_waking"
		if len(cpus) > 0 {
			in = append(in, asm.FnGetSmpProcessorId.Call())
			cpuFilter(asm.R0)
		}
		readPid(0, rA)
		in = append(in, asm.Mov.Imm(rB, 0))
		match(rA)
		in = append(in, asm.Ja.Label("drop"), asm.Mov.Imm(rC, 0).WithSymbol("keep"))
	case Switch:
		// TP_PROTO(bool preempt, struct task_struct *prev, struct
		// task_struct *next, unsigned int prev_state)
		name = "sched_switch"
		if len(cpus) > 0 {
			in = append(in, asm.FnGetSmpProcessorId.Call())
			cpuFilter(asm.R0)
		}
		readPid(8, rA)
		readPid(16, rB)
		in = append(in,
			// Switches to and from the idle task say whether a CPU
			// was idle (internal/anatomy): kept as the perf filter
			// keeps them.
			asm.JEq.Imm32(rA, 0, "keep"),
			asm.JEq.Imm32(rB, 0, "keep"),
		)
		match(rA)
		match(rB)
		in = append(in,
			asm.Ja.Label("drop"),
			// prev_state as the format reports it
			// (__trace_sched_switch_state): TASK_REPORT_MAX (0x100,
			// "R+") when preempted; TASK_REPORT_IDLE (0x80) for
			// TASK_IDLE; D for TASK_RTLOCK_WAIT; else the state's
			// report bits (the format keeps the highest of them;
			// internal/anatomy reads only whether any is set).
			asm.LoadMem(asm.R1, asm.R6, 0, asm.DWord).WithSymbol("keep"),
			asm.LoadMem(rC, asm.R6, 24, asm.DWord),
			asm.Mov.Reg32(rC, rC),
			asm.JEq.Imm(asm.R1, 0, "not_preempted"),
			asm.Mov.Imm(rC, 0x100),
			asm.Ja.Label("stamp"),
			asm.JNE.Imm(rC, 0x402, "not_idle").WithSymbol("not_preempted"),
			asm.Mov.Imm(rC, 0x80),
			asm.Ja.Label("stamp"),
			asm.JNE.Imm(rC, 0x1000, "report").WithSymbol("not_idle"),
			asm.Mov.Imm(rC, 2),
			asm.Ja.Label("stamp"),
			asm.And.Imm(rC, 0x7f).WithSymbol("report"),
		)
	case CPUIdle:
		// TP_PROTO(unsigned int state, unsigned int cpu_id)
		name = "cpu_idle"
		in = append(in,
			asm.LoadMem(rA, asm.R6, 0, asm.DWord),
			asm.Mov.Reg32(rA, rA),
			asm.LoadMem(rB, asm.R6, 8, asm.DWord),
			asm.Mov.Reg32(rB, rB),
		)
		cpuFilter(rB)
		in = append(in, asm.Mov.Imm(rC, 0))
	}
	in = append(in,
		asm.FnKtimeGetNs.Call().WithSymbol("stamp"),
		asm.StoreMem(asm.R10, slotTime, asm.R0, asm.DWord),
	)
	if len(ringCPUs) == 0 {
		in = append(in, asm.LoadMapPtr(asm.R1, ringFDs[0]))
	} else {
		// This CPU's ring.
		in = append(in, asm.FnGetSmpProcessorId.Call())
		for i, c := range ringCPUs {
			in = append(in, asm.JEq.Imm32(asm.R0, int32(c), fmt.Sprintf("ring%d", i)))
		}
		in = append(in, asm.Ja.Label("drop"))
		for i, fd := range ringFDs {
			in = append(in, asm.LoadMapPtr(asm.R1, fd).WithSymbol(fmt.Sprintf("ring%d", i)), asm.Ja.Label("reserve"))
		}
	}
	in = append(in,
		asm.Mov.Imm(asm.R2, bpfRecordSize).WithSymbol("reserve"),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnRingbufReserve.Call(),
		asm.JEq.Imm(asm.R0, 0, "lost"),
		asm.Mov.Reg(rRec, asm.R0),
		asm.LoadMem(asm.R1, asm.R10, slotTime, asm.DWord),
		asm.StoreMem(rRec, 0, asm.R1, asm.DWord),
		asm.StoreMem(rRec, 16, rA, asm.Word),
		asm.StoreMem(rRec, 20, rB, asm.Word),
		asm.StoreMem(rRec, 24, rC, asm.DWord),
		asm.FnGetCurrentPidTgid.Call(),
		asm.StoreMem(rRec, 8, asm.R0, asm.Word),
		asm.FnGetSmpProcessorId.Call(),
		asm.Or.Imm(asm.R0, int32(kind)<<16),
		asm.StoreMem(rRec, 12, asm.R0, asm.Word),
		asm.Mov.Reg(asm.R1, rRec),
		asm.Mov.Imm(asm.R2, rbNoWakeup),
		asm.FnRingbufSubmit.Call(),
		asm.Ja.Label("drop"),
		// The ring is full: count the record lost (a per-CPU slot: no
		// atomics) and keep the time of the first.
		asm.StoreImm(asm.R10, slotKey, 0, asm.Word).WithSymbol("lost"),
		asm.LoadMapPtr(asm.R1, lostFD),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, slotKey),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "drop"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
		asm.JNE.Imm(asm.R1, 1, "drop"),
		asm.LoadMem(asm.R1, asm.R10, slotTime, asm.DWord),
		asm.StoreMem(asm.R0, 8, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("drop"),
		asm.Return(),
	)
	return in, name
}

// pow2Pages rounds n up to a power of two pages of ps bytes (a BPF ring's
// size must be one).
func pow2Pages(n, ps int) int {
	size := ps
	for size < n {
		size *= 2
	}
	return size
}
