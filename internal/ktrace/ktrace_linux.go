package ktrace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Options says what to trace.
type Options struct {
	// TIDs are the participants: the syscall, wake and switch events are
	// filtered to them in the kernel where the kernel takes the filter
	// (PERF_EVENT_IOC_SET_FILTER on the event's own descriptor, nothing
	// in tracefs), and always again by internal/anatomy.
	TIDs []int
	// CPUs to trace (nil: every online CPU). cpu_idle is per CPU: trace
	// the CPUs the participants run on.
	CPUs []int
	// BytesPerCPU sizes each CPU's ring (rounded up to a power of two
	// pages; 0: 4 MiB). A round's records should fit: the rings are read
	// between rounds, so no reader runs beside the measured threads.
	BytesPerCPU int
	// Kinds are the events to open (nil: every one of Events). Fewer
	// events cost the traced threads less (each record is written by the
	// CPU that hit the tracepoint, inside the measured path).
	Kinds []Kind
	// Recorder is RecorderBPF, RecorderAuto or RecorderPerf ("" too).
	Recorder string
	// BPFBytes sizes the eBPF recorder's rings, all together (split
	// evenly between the traced CPUs' rings, 32 bytes a record; 0: a
	// quarter of BytesPerCPU times the CPUs: its records are about half a
	// perf sample's size). Mapped once into the process, resident as far
	// as the records reach.
	BPFBytes int
}

// Session is a set of opened tracepoints and their rings. Not safe for
// concurrent use.
type Session struct {
	fds     []int
	rings   []*ring
	dec     *Decoder
	lost    uint64
	full    int
	Notes   []string
	enabled bool
	// bpf is the eBPF recorder (bpf_linux.go), nil when perf records.
	bpf *bpfSession
	// Recorder is the recorder used: RecorderBPF or RecorderPerf.
	Recorder string
}

type ring struct {
	cpu  int
	mem  []byte
	page *unix.PerfEventMmapPage
	data []byte
	last int64 // time of the last record read (for a Lost event's window)
	hold int   // index in the output of a Lost event waiting for its end
}

// Root is the tracefs directory holding events/, or "" when none is mounted.
func Root() string {
	for _, d := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		// A directory this user may not read is there: reading its
		// events then says "permission denied", not "not mounted".
		if _, err := os.Stat(filepath.Join(d, "events")); err == nil || errors.Is(err, os.ErrPermission) {
			return d
		}
	}
	return ""
}

// Check says whether Open can work here, without opening anything that
// records: tracefs, the events' ids and formats, and one perf_event_open.
func Check() error {
	ids, _, err := load()
	if err != nil {
		return err
	}
	// One event on one CPU, opened and closed: the permission check
	// (perf_event_paranoid, CAP_PERFMON, lockdown) before any measuring.
	for _, sp := range Events {
		if sp.Kind != Switch {
			continue
		}
		fd, err := openOne(uint64(ids[sp.Kind]), 0)
		if err != nil {
			return explain(err, sp)
		}
		unix.Close(fd)
	}
	return nil
}

func load() (map[Kind]uint16, map[Kind]map[string]Field, error) {
	root := Root()
	if root == "" {
		return nil, nil, &Unavailable{Reason: "tracefs is not mounted",
			Fix: "as root: mount -t tracefs nodev /sys/kernel/tracing"}
	}
	ids := map[Kind]uint16{}
	formats := map[Kind]map[string]Field{}
	for _, s := range Events {
		dir := filepath.Join(root, "events", s.Group, s.Name)
		b, err := os.ReadFile(filepath.Join(dir, "id"))
		if err != nil {
			if errors.Is(err, os.ErrPermission) {
				return nil, nil, &Unavailable{Reason: "cannot read " + dir + "/id: permission denied",
					Fix: "run as root (tracefs is root-only by default)"}
			}
			if !s.Required {
				continue
			}
			return nil, nil, &Unavailable{Reason: fmt.Sprintf("this kernel has no %s:%s tracepoint", s.Group, s.Name),
				Fix: "a kernel built with CONFIG_FTRACE_SYSCALLS and the scheduler/power tracepoints"}
		}
		id, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 16)
		if err != nil {
			return nil, nil, fmt.Errorf("%s/id: %w", dir, err)
		}
		ft, err := os.ReadFile(filepath.Join(dir, "format"))
		if err != nil {
			return nil, nil, fmt.Errorf("%s/format: %w", dir, err)
		}
		f, err := ParseFormat(string(ft))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", dir, err)
		}
		ids[s.Kind], formats[s.Kind] = uint16(id), f
	}
	return ids, formats, nil
}

// Open opens every event on every CPU asked for, disabled, with one ring
// per CPU. On any error it closes what it opened.
func Open(o Options) (_ *Session, err error) {
	switch o.Recorder {
	case "", RecorderPerf, RecorderBPF, RecorderAuto:
	default:
		return nil, fmt.Errorf("--anatomy: recorder %q: want %s, %s or %s", o.Recorder, RecorderAuto, RecorderBPF, RecorderPerf)
	}
	size := o.BytesPerCPU
	if size <= 0 {
		size = 4 << 20
	}
	ps := os.Getpagesize()
	pages := 1
	for pages*ps < size {
		pages *= 2
	}
	var why string
	if o.Recorder == RecorderBPF || o.Recorder == RecorderAuto {
		why = bpfUsable(o)
		if why == "" {
			want := o.BPFBytes
			if want <= 0 {
				n := len(o.CPUs)
				if n == 0 {
					n = runtime.NumCPU()
				}
				want = pages * ps * n / 4
			}
			b, err := openBPF(o, want)
			if err == nil {
				return &Session{bpf: b, Recorder: RecorderBPF}, nil
			}
			why = err.Error()
		}
		if o.Recorder == RecorderBPF {
			return nil, &Unavailable{Reason: "eBPF recorder: " + why, Fix: "run as root on Linux 5.18 or later with BTF (CONFIG_DEBUG_INFO_BTF)"}
		}
	}
	ids, formats, err := load()
	if err != nil {
		return nil, err
	}
	dec, err := NewDecoder(ids, formats)
	if err != nil {
		return nil, err
	}
	cpus := o.CPUs
	if len(cpus) == 0 {
		if cpus, err = onlineCPUs(); err != nil {
			return nil, err
		}
	}
	s := &Session{dec: dec, Recorder: RecorderPerf}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if o.Recorder == RecorderAuto && why != "" {
		s.Notes = append(s.Notes, "recorded through perf, not eBPF: "+why)
	}
	filtered := map[string]bool{}
	for _, cpu := range cpus {
		leader := -1
		for _, sp := range Events {
			id, ok := ids[sp.Kind]
			if !ok || o.Kinds != nil && !slices.Contains(o.Kinds, sp.Kind) {
				continue
			}
			fd, err := openOne(uint64(id), cpu)
			if err != nil {
				return nil, fmt.Errorf("%w", explain(err, sp))
			}
			s.fds = append(s.fds, fd)
			if f := filterFor(sp.Kind, o.TIDs); f != "" {
				if setFilter(fd, f) == nil {
					filtered[sp.Name] = true
				}
			}
			if leader < 0 {
				leader = fd
				r, err := mapRing(fd, cpu, pages, ps)
				if err != nil {
					return nil, err
				}
				s.rings = append(s.rings, r)
				continue
			}
			if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_OUTPUT, leader); err != nil {
				return nil, fmt.Errorf("--anatomy: sharing cpu %d's ring: %w", cpu, err)
			}
		}
	}
	if len(filtered) == 0 && len(o.TIDs) > 0 {
		s.Notes = append(s.Notes, "the kernel took no tracepoint filter: every thread's events were recorded and filtered here")
	}
	return s, nil
}

func openOne(id uint64, cpu int) (int, error) {
	attr := unix.PerfEventAttr{
		Type:        unix.PERF_TYPE_TRACEPOINT,
		Config:      id,
		Sample:      1, // every event
		Sample_type: unix.PERF_SAMPLE_TID | unix.PERF_SAMPLE_TIME | unix.PERF_SAMPLE_CPU | unix.PERF_SAMPLE_RAW,
		Bits:        unix.PerfBitDisabled | unix.PerfBitUseClockID,
		// CLOCK_MONOTONIC: the kernel stamps records with
		// ktime_get_mono_fast_ns, the clock clock_gettime(CLOCK_MONOTONIC)
		// reads (runtime.nanotime, the C references' now_ns).
		Clockid: unix.CLOCK_MONOTONIC,
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	return unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
}

func explain(err error, sp Spec) error {
	name := sp.Group + ":" + sp.Name
	switch {
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		p, _ := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
		return &Unavailable{Reason: fmt.Sprintf("perf_event_open(%s) refused: %v (kernel.perf_event_paranoid=%s)", name, err, strings.TrimSpace(string(p))),
			Fix: "run as root (CAP_PERFMON), or sysctl kernel.perf_event_paranoid=-1; a locked-down kernel refuses tracepoints"}
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENODEV), errors.Is(err, unix.EINVAL), errors.Is(err, unix.EOPNOTSUPP):
		return &Unavailable{Reason: fmt.Sprintf("perf_event_open(%s): %v", name, err),
			Fix: "a kernel with perf events, tracepoints and use_clockid (Linux 4.1 or later)"}
	case errors.Is(err, unix.EMFILE), errors.Is(err, unix.ENFILE):
		return &Unavailable{Reason: fmt.Sprintf("perf_event_open(%s): %v", name, err), Fix: "raise the open-files limit (ulimit -n)"}
	}
	return fmt.Errorf("--anatomy: perf_event_open(%s): %w", name, err)
}

// filterFor is the kernel-side filter of kind for tids ("" none): only a
// cut of the volume; internal/anatomy filters again.
func filterFor(k Kind, tids []int) string {
	if len(tids) == 0 {
		return ""
	}
	var field []string
	switch k {
	case FutexEnter, FutexExit, IPISend:
		field = []string{"common_pid"}
	case Waking, Wakeup:
		field = []string{"pid"}
	case Switch:
		field = []string{"prev_pid", "next_pid"}
	case ReschedIRQ, CallFuncIRQ:
		// The task interrupted: the idle task or a participant.
		field = []string{"common_pid"}
		tids = append([]int{0}, tids...)
	default:
		return ""
	}
	var or []string
	if k == Switch {
		// Switches to and from the idle task say whether a CPU was
		// idle (internal/anatomy).
		or = append(or, "prev_pid == 0", "next_pid == 0")
	}
	for _, f := range field {
		for _, t := range tids {
			or = append(or, f+" == "+strconv.Itoa(t))
		}
	}
	return strings.Join(or, " || ")
}

func setFilter(fd int, f string) error {
	p, err := unix.BytePtrFromString(f)
	if err != nil {
		return err
	}
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(unix.PERF_EVENT_IOC_SET_FILTER), uintptr(unsafe.Pointer(p)))
	if e != 0 {
		return e
	}
	return nil
}

func mapRing(fd, cpu, pages, ps int) (*ring, error) {
	mem, err := unix.Mmap(fd, 0, (1+pages)*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOMEM) {
			return nil, &Unavailable{Reason: fmt.Sprintf("mapping a %d KiB ring on cpu %d: %v", pages*ps>>10, cpu, err),
				Fix: "run as root, or raise kernel.perf_event_mlock_kb"}
		}
		return nil, fmt.Errorf("--anatomy: mmap ring on cpu %d: %w", cpu, err)
	}
	page := (*unix.PerfEventMmapPage)(unsafe.Pointer(&mem[0]))
	off, size := int(page.Data_offset), int(page.Data_size)
	if off == 0 { // kernels before 4.1 leave these 0
		off, size = ps, pages*ps
	}
	return &ring{cpu: cpu, mem: mem, page: page, data: mem[off : off+size], hold: -1}, nil
}

func onlineCPUs() ([]int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu/online %q: %w", b, err)
		}
		z := a
		if isRange {
			if z, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("cpu/online %q: %w", b, err)
			}
		}
		for c := a; c <= z; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// Enable starts recording on every event.
func (s *Session) Enable() error {
	if s.bpf != nil {
		return s.bpf.enable()
	}
	return s.ioctlAll(unix.PERF_EVENT_IOC_ENABLE, true)
}

// Disable stops recording; what was recorded stays in the rings.
func (s *Session) Disable() error {
	if s.bpf != nil {
		return s.bpf.disable()
	}
	return s.ioctlAll(unix.PERF_EVENT_IOC_DISABLE, false)
}

func (s *Session) ioctlAll(req uint, on bool) error {
	for _, fd := range s.fds {
		if err := unix.IoctlSetInt(fd, req, 0); err != nil {
			return fmt.Errorf("--anatomy: perf ioctl: %w", err)
		}
	}
	s.enabled = on
	return nil
}

// Lost is the number of records the kernel dropped since Open (rings
// full).
func (s *Session) Lost() uint64 { return s.lost }

// Full is the number of times a ring was found full when read (records
// after its last one dropped, their count not known yet).
func (s *Session) Full() int { return s.full }

// Drain appends every record in the rings to dst, each ring in its own
// order (one CPU's records are in time order), and frees the rings.
func (s *Session) Drain(dst []Event) []Event {
	if s.bpf != nil {
		dst = s.bpf.drain(dst)
		s.lost, s.full = s.bpf.lost, s.bpf.full
		return dst
	}
	for _, r := range s.rings {
		dst = s.drainRing(r, dst)
	}
	return dst
}

// maxRecord bounds one sample record of these events (header, TID, TIME,
// CPU, RAW of at most ~100 bytes for sched_switch).
const maxRecord = 512

const (
	recordLost        = 2
	recordSample      = 9
	recordLostSamples = 13
)

func (s *Session) drainRing(r *ring, dst []Event) []Event {
	head := atomic.LoadUint64(&r.page.Data_head) // acquire: records up to head are written
	tail := r.page.Data_tail
	n := uint64(len(r.data))
	// A ring with less free space than a record is full: the kernel
	// drops what comes next and writes its PERF_RECORD_LOST only once a
	// record fits again, after this read. Mark the loss now, from the
	// last record read to the end, so no wake after it is attributed.
	full := n-(head-tail) < maxRecord
	var buf []byte
	for tail < head {
		var hdr [8]byte
		copyRing(hdr[:], r.data, tail)
		size := uint64(binary.LittleEndian.Uint16(hdr[6:]))
		typ := binary.LittleEndian.Uint32(hdr[0:])
		if size < 8 || size > n {
			break // corrupt: stop reading this ring
		}
		if cap(buf) < int(size) {
			buf = make([]byte, size)
		}
		rec := buf[:size]
		copyRing(rec, r.data, tail)
		tail += size
		switch typ {
		case recordSample:
			e, ok := s.decodeSample(rec[8:])
			if !ok {
				continue
			}
			e.CPU = int16(r.cpu)
			if r.hold >= 0 {
				dst[r.hold].B = e.Time
				r.hold = -1
			}
			r.last = e.Time
			dst = append(dst, e)
		case recordLost, recordLostSamples:
			var lost uint64
			if typ == recordLost && len(rec) >= 24 {
				lost = binary.LittleEndian.Uint64(rec[16:])
			} else if len(rec) >= 16 {
				lost = binary.LittleEndian.Uint64(rec[8:])
			}
			s.lost += lost
			if r.hold >= 0 {
				dst[r.hold].A += int64(lost)
				continue
			}
			r.hold = len(dst)
			dst = append(dst, Event{Kind: Lost, Time: r.last, A: int64(lost), B: 1<<63 - 1, CPU: int16(r.cpu)})
		}
	}
	if full && r.hold < 0 {
		s.full++
		dst = append(dst, Event{Kind: Lost, Time: r.last, B: 1<<63 - 1, CPU: int16(r.cpu)})
	}
	atomic.StoreUint64(&r.page.Data_tail, head) // release: the kernel may reuse the space
	return dst
}

// decodeSample reads TID, TIME, CPU, RAW (the sample_type's order).
func (s *Session) decodeSample(b []byte) (Event, bool) {
	if len(b) < 28 {
		return Event{}, false
	}
	e := Event{
		TID:  int32(binary.LittleEndian.Uint32(b[4:])),
		Time: int64(binary.LittleEndian.Uint64(b[8:])),
	}
	rawSize := int(binary.LittleEndian.Uint32(b[24:]))
	if 28+rawSize > len(b) {
		return Event{}, false
	}
	if !s.dec.Decode(b[28:28+rawSize], &e) {
		return Event{}, false
	}
	return e, true
}

func copyRing(dst, data []byte, pos uint64) {
	n := uint64(len(data))
	off := pos % n
	k := copy(dst, data[off:])
	if k < len(dst) {
		copy(dst[k:], data)
	}
}

// Close disables and closes every event and unmaps the rings. The kernel
// does the same when the process dies.
func (s *Session) Close() error {
	if s == nil {
		return nil
	}
	s.bpf.close()
	s.bpf = nil
	var first error
	for _, r := range s.rings {
		if err := unix.Munmap(r.mem); err != nil && first == nil {
			first = err
		}
	}
	s.rings = nil
	for _, fd := range s.fds {
		if err := unix.Close(fd); err != nil && first == nil {
			first = err
		}
	}
	s.fds = nil
	return first
}
