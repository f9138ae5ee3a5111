package ktrace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

// The eBPF recorder (docs/anatomy.md, "Mechanism"): one small program per
// tracepoint, attached to the tracepoint as a BTF-typed raw tracepoint
// (BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP: the tracepoint's own arguments,
// no trace record assembled; a task's pid read with one typed load), which
// filters in the kernel as the perf recorder's filters do and writes one
// 32-byte record into the next slot of its CPU's ring (ringCPUs): a span of
// a memory-mapped BPF array, its slot taken with one atomic add on the
// ring's counter. Nothing is woken; the rings are read between rounds,
// with the programs detached. A BPF ring buffer (bpf_ringbuf_reserve and
// _submit) cost ~70 ns more an event here (docs/anatomy.md, "Probe
// effect"): its reservation takes a spinlock with interrupts saved, and
// its commit a full barrier. What it spares each
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
	// records holds the rings, slots records each: ring i is records
	// [i*slots, (i+1)*slots), one per traced CPU (ringCPUs) or one for
	// all; mem is its mapping into this process.
	records *ebpf.Map
	mem     *ebpf.Memory
	slots   int
	// counts is a ring's next slot (u64; past slots: the records
	// dropped) and the time of the first record dropped (u64).
	counts *ebpf.Map
	rings  int
	buf    []byte
	progs  []*ebpf.Program
	names  []string
	links  []link.Link
	lost   uint64
	full   int
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
	b.rings = max(len(cpus), 1)
	b.slots = max(ringBytes/b.rings/bpfRecordSize, 1)
	b.records, err = ebpf.NewMap(&ebpf.MapSpec{Name: "pb_anatomy", Type: ebpf.Array, KeySize: 4, ValueSize: bpfRecordSize,
		MaxEntries: uint32(b.rings * b.slots), Flags: unix.BPF_F_MMAPABLE})
	if err != nil {
		return nil, fmt.Errorf("BPF array of %d KiB for the records: %w", b.rings*b.slots*bpfRecordSize>>10, err)
	}
	if b.mem, err = b.records.Memory(); err != nil {
		return nil, fmt.Errorf("BPF array of the records, mapped: %w", err)
	}
	b.counts, err = ebpf.NewMap(&ebpf.MapSpec{Name: "pb_counts", Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: uint32(b.rings)})
	if err != nil {
		return nil, fmt.Errorf("BPF ring counters: %w", err)
	}
	for _, k := range bpfKinds {
		if !slices.Contains(o.Kinds, k) {
			continue
		}
		insns, name := bpfProgram(k, o.TIDs, o.CPUs, l.pidOffset, cpus, b.slots, b.records.FD(), b.counts.FD())
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
// first record dropped to the end: the wakes after it are not attributed),
// and empties the rings. The programs are detached first: a ring's counter
// is set back to 0 here, and a program running beside it would take a
// slot that is then written over.
func (b *bpfSession) drain(dst []Event) []Event {
	b.disable()
	first, dropped := int64(-1), uint64(0)
	for r := range b.rings {
		key := uint32(r)
		var c [16]byte
		if err := b.counts.Lookup(&key, &c); err != nil {
			continue
		}
		n := binary.LittleEndian.Uint64(c[0:])
		if n == 0 {
			continue
		}
		kept := min(n, uint64(b.slots))
		if n > kept {
			dropped += n - kept
			if t := int64(binary.LittleEndian.Uint64(c[8:])); first < 0 || t < first {
				first = t
			}
		}
		dst = b.read(dst, r, int(kept))
		_ = b.counts.Update(&key, [16]byte{}, ebpf.UpdateExist)
	}
	if dropped > 0 {
		b.lost += dropped
		b.full++
		dst = append(dst, Event{Kind: Lost, Time: first, A: int64(dropped), B: 1<<63 - 1, CPU: -1})
	}
	return dst
}

// read appends ring r's first n records to dst, 64 KiB at a time (the
// mapping is read through a small buffer, not copied whole).
func (b *bpfSession) read(dst []Event, r, n int) []Event {
	if b.buf == nil {
		b.buf = make([]byte, 2048*bpfRecordSize)
	}
	off := int64(r) * int64(b.slots) * bpfRecordSize
	for n > 0 {
		k := min(n, len(b.buf)/bpfRecordSize)
		if _, err := b.mem.ReadAt(b.buf[:k*bpfRecordSize], off); err != nil {
			return dst
		}
		for i := range k {
			if e, ok := decodeBPF(b.buf[i*bpfRecordSize:]); ok {
				dst = append(dst, e)
			}
		}
		off += int64(k) * bpfRecordSize
		n -= k
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
	for _, p := range b.progs {
		p.Close()
	}
	b.progs = nil
	for _, m := range []*ebpf.Map{b.records, b.counts} {
		if m != nil {
			m.Close()
		}
	}
	b.records, b.counts, b.mem = nil, nil, nil
}

// Registers of the programs: R6-R9 survive helper calls.
const (
	rA   = asm.R7 // the record's a
	rB   = asm.R8 // its b
	rC   = asm.R6 // its c (R6 holds the context until the arguments are read)
	rRec = asm.R9 // the ring's counter, then the record
)

// fetchAdd is `src = atomic_fetch_add((u64 *)dst, src)`. cilium/ebpf
// v0.22.0 marshals asm.FetchAdd.Mem without its BPF_FETCH bit (the
// immediate is taken, asm/instruction.go:155, before the atomic op is moved
// into it, :198): the kernel then runs a plain atomic add and src keeps its
// value. Set here, the immediate is right either way
// (TestBPFFetchAddMarshals).
func fetchAdd(dst, src asm.Register) asm.Instruction {
	in := asm.FetchAdd.Mem(dst, src, asm.DWord, 0)
	in.Constant = int64(asm.FetchAdd >> 8)
	return in
}

// Stack slots.
const (
	slotTime = -8  // the time, taken right after the filter
	slotRing = -12 // the ring's index: the counters' key
	slotSlot = -16 // the record's index in the array: the records' key
)

// bpfProgram is kind's program: read the arguments, filter (tids,
// cpus), stamp the time, take the ring's next slot and fill it; when the
// ring is full, the slot taken counts the record dropped, and the first
// one dropped leaves its time. It returns the instructions and the
// tracepoint's name.
//
// ringCPUs are the rings' CPUs: the record goes to the ring of the CPU it
// is written on (none: one ring for every CPU), slots records each, in the
// array recordsFD; countsFD holds each ring's counter.
func bpfProgram(kind Kind, tids, cpus []int, pidOff int, ringCPUs []int, slots, recordsFD, countsFD int) (asm.Instructions, string) {
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
		in = append(in, asm.Mov.Imm(asm.R1, 0))
	} else {
		// This CPU's ring.
		in = append(in, asm.FnGetSmpProcessorId.Call())
		for i, c := range ringCPUs {
			in = append(in, asm.JEq.Imm32(asm.R0, int32(c), fmt.Sprintf("ring%d", i)))
		}
		in = append(in, asm.Ja.Label("drop"))
		for i := range ringCPUs {
			in = append(in, asm.Mov.Imm(asm.R1, int32(i)).WithSymbol(fmt.Sprintf("ring%d", i)), asm.Ja.Label("take"))
		}
	}
	// lookup points R0 at the array element whose key is at the stack slot
	// (an array's lookup is inlined by the verifier: no call).
	lookup := func(fd int, slot int16) {
		in = append(in,
			asm.LoadMapPtr(asm.R1, fd),
			asm.Mov.Reg(asm.R2, asm.R10),
			asm.Add.Imm(asm.R2, int32(slot)),
			asm.FnMapLookupElem.Call(),
			asm.JEq.Imm(asm.R0, 0, "drop"),
		)
	}
	in = append(in, asm.StoreMem(asm.R10, slotRing, asm.R1, asm.Word).WithSymbol("take"))
	lookup(countsFD, slotRing)
	// The slot: one atomic add on the ring's counter. Not a plain load and
	// store: a sched_waking taken with interrupts on (a task waking
	// itself) can be interrupted by another on the same CPU, and each
	// must own its slot.
	in = append(in,
		asm.Mov.Reg(rRec, asm.R0),
		asm.Mov.Imm(asm.R1, 1),
		fetchAdd(rRec, asm.R1),
		asm.JGE.Imm(asm.R1, int32(slots), "full"),
		asm.LoadMem(asm.R2, asm.R10, slotRing, asm.Word),
		asm.Mul.Imm(asm.R2, int32(slots)),
		asm.Add.Reg(asm.R2, asm.R1),
		asm.StoreMem(asm.R10, slotSlot, asm.R2, asm.Word),
	)
	lookup(recordsFD, slotSlot)
	in = append(in,
		asm.Mov.Reg(rRec, asm.R0),
		asm.LoadMem(asm.R1, asm.R10, slotTime, asm.DWord),
		asm.StoreMem(rRec, 0, asm.R1, asm.DWord),
		asm.StoreMem(rRec, 16, rA, asm.Word),
		asm.StoreMem(rRec, 20, rB, asm.Word),
		asm.StoreMem(rRec, 24, rC, asm.DWord),
	)
	if kind == Switch {
		// sched_switch fires in prev's context (kernel/sched/core.c
		// __schedule, before context_switch): the current thread is
		// prev, already in rA; no helper call.
		in = append(in, asm.StoreMem(rRec, 8, rA, asm.Word))
	} else {
		in = append(in,
			asm.FnGetCurrentPidTgid.Call(),
			asm.StoreMem(rRec, 8, asm.R0, asm.Word),
		)
	}
	in = append(in,
		asm.FnGetSmpProcessorId.Call(),
		asm.Or.Imm(asm.R0, int32(kind)<<16),
		asm.StoreMem(rRec, 12, asm.R0, asm.Word),
		asm.Ja.Label("drop"),
		// The ring is full: the counter, past slots, counts the records
		// dropped; the first one dropped keeps its time beside it.
		asm.JNE.Imm(asm.R1, int32(slots), "drop").WithSymbol("full"),
		asm.LoadMem(asm.R1, asm.R10, slotTime, asm.DWord),
		asm.StoreMem(rRec, 8, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("drop"),
		asm.Return(),
	)
	return in, name
}
