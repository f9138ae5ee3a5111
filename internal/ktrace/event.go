// Package ktrace reads a few of the kernel's scheduler, syscall, IPI and
// idle tracepoints for a short window and decodes them into Events, with
// one of two recorders:
//
//   - eBPF (bpf_linux.go, Options.Recorder RecorderBPF or RecorderAuto):
//     a small program per tracepoint (sched_waking, sched_switch,
//     cpu_idle), attached as a BTF-typed raw tracepoint, filters in the
//     kernel and writes a 32-byte record into its CPU's span of a
//     memory-mapped BPF array, waking no one. The cheaper per event
//     (docs/anatomy.md, "Probe effect"); Linux 5.18 or later with BTF.
//   - perf: perf_event_open on each tracepoint (PERF_TYPE_TRACEPOINT) per
//     CPU, one mmap'd ring buffer per CPU, the raw records decoded by the
//     field offsets of the events' tracefs format files. Every event, any
//     number of threads.
//
// Both stamp records on CLOCK_MONOTONIC (bpf_ktime_get_ns; perf_event_attr's
// use_clockid), the clock runtime.nanotime and the C references read
// (internal/monoclock), so a trace joins parkbench's own clock readings
// without any conversion.
//
// Nothing is written to tracefs: the events and programs are held by file
// descriptors, and the kernel disables and frees them when the descriptors
// close, also when the process is killed. The rings are read between
// windows: no reader is woken while the traced threads run.
//
// The package decodes; internal/anatomy interprets.
package ktrace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind is a decoded event's type.
type Kind uint8

// The events read (tracefs group:name in Events).
const (
	FutexEnter  Kind = iota + 1 // syscalls:sys_enter_futex: A = op
	FutexExit                   // syscalls:sys_exit_futex: A = ret
	Waking                      // sched:sched_waking: A = pid woken, B = target_cpu
	Wakeup                      // sched:sched_wakeup: A = pid, B = target_cpu
	Switch                      // sched:sched_switch: A = prev_pid, B = next_pid, C = prev_state
	IPISend                     // ipi:ipi_send_cpu: A = target cpu
	CPUIdle                     // power:cpu_idle: A = state (IdleExit: leaving idle), B = cpu_id
	ReschedIRQ                  // irq_vectors:reschedule_entry
	CallFuncIRQ                 // irq_vectors:call_function_single_entry
	Lost                        // PERF_RECORD_LOST / LOST_SAMPLES: A = records lost; the loss lies in (Time, B]
)

// The recorders (Options.Recorder, Session.Recorder). RecorderAuto asks for
// eBPF where the kernel takes it and the events are the ones it records,
// else perf.
const (
	RecorderBPF  = "ebpf"
	RecorderPerf = "perf"
	RecorderAuto = "auto"
)

// IdleExit is power:cpu_idle's state when a CPU leaves idle ((u32)-1).
const IdleExit = 4294967295

// Event is one decoded record. Time is CLOCK_MONOTONIC ns; CPU is the CPU
// whose ring held it; TID is the thread that was current (PERF_SAMPLE_TID:
// the waker for Waking, the sender for IPISend, 0 for the idle task).
type Event struct {
	Time    int64
	A, B, C int64
	TID     int32
	CPU     int16
	Kind    Kind
}

// Spec is one tracepoint and the fields it is decoded by.
type Spec struct {
	Kind        Kind
	Group, Name string
	// Fields are read into A, B, C in this order; Required events make
	// Open fail when the kernel lacks them.
	Fields   []string
	Required bool
}

// Events is what Open opens, in Kind order.
var Events = []Spec{
	{FutexEnter, "syscalls", "sys_enter_futex", []string{"op"}, false},
	{FutexExit, "syscalls", "sys_exit_futex", []string{"ret"}, false},
	{Waking, "sched", "sched_waking", []string{"pid", "target_cpu"}, true},
	{Wakeup, "sched", "sched_wakeup", []string{"pid", "target_cpu"}, false},
	{Switch, "sched", "sched_switch", []string{"prev_pid", "next_pid", "prev_state"}, true},
	{IPISend, "ipi", "ipi_send_cpu", []string{"cpu"}, false},
	{CPUIdle, "power", "cpu_idle", []string{"state", "cpu_id"}, true},
	{ReschedIRQ, "irq_vectors", "reschedule_entry", nil, false},
	{CallFuncIRQ, "irq_vectors", "call_function_single_entry", nil, false},
}

func (k Kind) String() string {
	if k == Lost {
		return "lost"
	}
	for _, s := range Events {
		if s.Kind == k {
			return s.Group + ":" + s.Name
		}
	}
	return "kind" + strconv.Itoa(int(k))
}

// Unavailable is why tracing cannot run here, with what would fix it: one
// line each (the command turns it into exit 2).
type Unavailable struct {
	Reason, Fix string
}

func (u *Unavailable) Error() string {
	if u.Fix == "" {
		return u.Reason
	}
	return u.Reason + " (" + u.Fix + ")"
}

// IsUnavailable reports whether err says tracing cannot run here.
func IsUnavailable(err error) bool {
	var u *Unavailable
	return errors.As(err, &u)
}

// Field is one field of a format file.
type Field struct {
	Offset, Size int
	Signed       bool
}

// ParseFormat reads a tracefs format file's fields by name
// ("field:int common_pid;\toffset:4;\tsize:4;\tsigned:1;").
func ParseFormat(text string) (map[string]Field, error) {
	out := map[string]Field{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "field:") {
			continue
		}
		var decl string
		f := Field{Offset: -1}
		for _, part := range strings.Split(line, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(part), ":")
			if !ok {
				continue
			}
			switch k {
			case "field":
				decl = v
			case "offset":
				f.Offset, _ = strconv.Atoi(v)
			case "size":
				f.Size, _ = strconv.Atoi(v)
			case "signed":
				f.Signed = v == "1"
			}
		}
		// The name is the declaration's last word, without an array
		// suffix ("char comm[16]").
		name := decl
		if i := strings.LastIndexAny(name, " *"); i >= 0 {
			name = name[i+1:]
		}
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		if name == "" || f.Offset < 0 || f.Size <= 0 {
			return nil, fmt.Errorf("format line %q: no name, offset or size", line)
		}
		out[name] = f
	}
	if _, ok := out["common_type"]; !ok {
		return nil, errors.New("format: no common_type field")
	}
	return out, nil
}

// Read decodes f from raw (little-endian, as every platform perf traces
// on here); ok is false when raw is too short.
func (f Field) Read(raw []byte) (int64, bool) {
	if f.Offset+f.Size > len(raw) {
		return 0, false
	}
	var u uint64
	for i := f.Size - 1; i >= 0; i-- {
		u = u<<8 | uint64(raw[f.Offset+i])
	}
	if f.Signed && f.Size < 8 {
		shift := 64 - 8*uint(f.Size)
		return int64(u<<shift) >> shift, true
	}
	return int64(u), true
}

// Decoder turns raw tracepoint records into Events.
type Decoder struct {
	byID map[uint16]decodeSpec
	typ  Field
}

type decodeSpec struct {
	kind   Kind
	fields []Field
}

// NewDecoder builds a decoder from each event's tracepoint id and format
// fields; kinds absent from ids are not decoded.
func NewDecoder(ids map[Kind]uint16, formats map[Kind]map[string]Field) (*Decoder, error) {
	d := &Decoder{byID: map[uint16]decodeSpec{}}
	for _, s := range Events {
		id, ok := ids[s.Kind]
		if !ok {
			continue
		}
		fm := formats[s.Kind]
		ds := decodeSpec{kind: s.Kind}
		for _, name := range s.Fields {
			f, ok := fm[name]
			if !ok {
				return nil, fmt.Errorf("%s:%s: no field %q in its format", s.Group, s.Name, name)
			}
			ds.fields = append(ds.fields, f)
		}
		d.typ = fm["common_type"]
		d.byID[id] = ds
	}
	if d.typ.Size == 0 {
		d.typ = Field{Offset: 0, Size: 2}
	}
	return d, nil
}

// Decode fills e's Kind and fields from one record's raw data; false for a
// record of an event it does not know or too short for its fields.
func (d *Decoder) Decode(raw []byte, e *Event) bool {
	id, ok := d.typ.Read(raw)
	if !ok {
		return false
	}
	ds, ok := d.byID[uint16(id)]
	if !ok {
		return false
	}
	e.Kind = ds.kind
	var v [3]int64
	for i, f := range ds.fields {
		x, ok := f.Read(raw)
		if !ok {
			return false
		}
		v[i] = x
	}
	e.A, e.B, e.C = v[0], v[1], v[2]
	return true
}
