package stacks

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/procfs"
)

// DetailKeys are the Detail keys of a stacks configuration in display
// order (the result carries them: Experiment.DetailOrder); "what" heads a
// block, "summary" and "goroutines" are the Go runtime's row.
var DetailKeys = []string{
	"what", "tid", "state", "wchan", "syscall", "futex_op", "futex_addr", "futex_val", "futex_timeout",
	"matches", "memory", "kernel_stack", "goroutine", "goroutine_wait", "go_stack", "threads", "summary", "goroutines",
}

// goroutineDump is one goroutine of a runtime.Stack(all) dump.
type goroutineDump struct {
	id     int
	wait   string   // the bracketed status: "syscall, locked to thread", "sync.Mutex.Lock", "chan receive"
	frames []string // function names, innermost first
}

// parseGoroutines splits a runtime.Stack(buf, true) dump into goroutines.
func parseGoroutines(dump string) map[int]goroutineDump {
	out := map[int]goroutineDump{}
	for _, block := range strings.Split(dump, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		hdr := lines[0]
		f := strings.Fields(hdr)
		if len(f) < 2 {
			continue
		}
		id, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		g := goroutineDump{id: id}
		if i, j := strings.IndexByte(hdr, '['), strings.LastIndexByte(hdr, ']'); i >= 0 && j > i {
			g.wait = hdr[i+1 : j]
		}
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "\t") || l == "" {
				continue
			}
			if strings.HasPrefix(l, "created by ") {
				break
			}
			g.frames = append(g.frames, frameFunc(l))
		}
		out[id] = g
	}
	return out
}

// frameFunc strips the argument list from a traceback line:
// "pkg.(*T).m(0xc000010000, {0x0, 0x0})" -> "pkg.(*T).m".
func frameFunc(line string) string {
	line = strings.TrimSpace(line)
	if strings.HasSuffix(line, ")") {
		if i := strings.LastIndexByte(line, '('); i > 0 {
			return line[:i]
		}
	}
	return line
}

// marker is the full name of the function every blocked goroutine calls
// its mechanism from (blockIn); frames from it down are not shown. It is
// read from the function itself, so that a move or a rename of the package
// cannot leave a stale literal behind.
var marker = runtime.FuncForPC(reflect.ValueOf(blockIn).Pointer()).Name()

// internalPrefix is this module's "<module>/internal/" import path prefix,
// derived from marker (".../internal/experiments/stacks.blockIn").
var internalPrefix = marker[:strings.Index(marker, "/internal/")+len("/internal/")]

// shortFunc drops this module's import path prefix for display.
func shortFunc(f string) string {
	return strings.TrimPrefix(f, internalPrefix)
}

// topFrames returns a goroutine's frames above the marker (at most n).
func topFrames(g goroutineDump, n int) []string {
	var out []string
	for _, f := range g.frames {
		if f == marker {
			break
		}
		out = append(out, shortFunc(f))
		if len(out) == n {
			break
		}
	}
	return out
}

// blockIn runs a mechanism's blocking call; its name marks where the
// interesting frames end in a goroutine dump.
//
//go:noinline
func blockIn(block func()) { block() }

// currentGoid reads the calling goroutine's id from its own traceback.
func currentGoid() int {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	f := strings.Fields(string(buf[:n]))
	if len(f) >= 2 && f[0] == "goroutine" {
		if id, err := strconv.Atoi(f[1]); err == nil {
			return id
		}
	}
	return -1
}

// allGoroutines returns the whole goroutine dump (growing the buffer until
// it fits).
func allGoroutines() string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// objectRegions lists the memory of obj (a pointer) and of what it points
// to, field by field, labelled in Go syntax, so the address a thread sleeps
// on can be named: "futex parker.state", "(*pthread parker.c).c (+40)",
// "(*crossbeam parker.unparker.inner).cvar". It follows pointers and
// interfaces a few levels; sync/atomic values are leaves. The first region
// is obj itself.
func objectRegions(label string, obj any) []procfs.Region {
	v := reflect.ValueOf(obj)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	var out []procfs.Region
	seen := map[uintptr]bool{v.Pointer(): true}
	var walk func(label string, v reflect.Value, depth int)
	follow := func(label string, p reflect.Value, depth int) {
		if p.Kind() == reflect.Interface {
			if p.IsNil() {
				return
			}
			p = p.Elem()
		}
		if p.Kind() != reflect.Pointer || p.IsNil() || p.Type().Elem().Size() == 0 || seen[p.Pointer()] {
			return
		}
		seen[p.Pointer()] = true
		walk("(*"+label+")", p.Elem(), depth+1)
	}
	walk = func(label string, v reflect.Value, depth int) {
		if !v.CanAddr() {
			return
		}
		out = append(out, procfs.Region{Label: label, Addr: uint64(v.UnsafeAddr()), Size: uint64(v.Type().Size())})
		if depth > 4 || v.Kind() != reflect.Struct || v.Type().PkgPath() == "sync/atomic" {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			name := label + "." + v.Type().Field(i).Name
			fv := v.Field(i)
			switch fv.Kind() {
			case reflect.Pointer, reflect.Interface:
				out = append(out, procfs.Region{Label: name, Addr: uint64(fv.UnsafeAddr()), Size: uint64(fv.Type().Size())})
				follow(name, fv, depth)
			default:
				walk(name, fv, depth+1)
			}
		}
	}
	walk(label, v.Elem(), 0)
	return out
}

// rootRegions returns the regions no other region contains: the objects
// themselves rather than their fields.
func rootRegions(regions []procfs.Region) []procfs.Region {
	var out []procfs.Region
	for i, r := range regions {
		inside := false
		for j, s := range regions {
			if i != j && s.Addr <= r.Addr && r.Addr+r.Size <= s.Addr+s.Size && (s.Size > r.Size || j < i) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, r)
		}
	}
	return out
}

// formatSyscall renders a decoded /proc syscall strace-style.
func formatSyscall(arch string, sc procfs.Syscall) string {
	switch {
	case sc.Running:
		return "none (running)"
	case !sc.InSyscall:
		return fmt.Sprintf("none (blocked outside a system call, pc 0x%x)", sc.PC)
	}
	name := procfs.SyscallName(arch, sc.Nr)
	a := sc.Args
	ptr := func(v uint64) string {
		if v == 0 {
			return "NULL"
		}
		return fmt.Sprintf("0x%x", v)
	}
	switch name {
	case "futex":
		op := procfs.FutexOp(a[1])
		switch procfs.FutexCmd(a[1]) {
		case procfs.FutexWait:
			return fmt.Sprintf("futex(0x%x, %s, %d, %s)", a[0], op, int32(a[2]), ptr(a[3]))
		case procfs.FutexWaitBitset:
			mask := fmt.Sprintf("0x%x", uint32(a[5]))
			if uint32(a[5]) == 0xffffffff {
				mask = "FUTEX_BITSET_MATCH_ANY"
			}
			return fmt.Sprintf("futex(0x%x, %s, %d, %s, NULL, %s)", a[0], op, int32(a[2]), ptr(a[3]), mask)
		}
		return fmt.Sprintf("futex(0x%x, %s, %d, %s, %s, %d)", a[0], op, int32(a[2]), ptr(a[3]), ptr(a[4]), a[5])
	case "epoll_pwait", "epoll_wait":
		return fmt.Sprintf("%s(%d, 0x%x, %d, %d)", name, int32(a[0]), a[1], int32(a[2]), int32(a[3]))
	case "nanosleep":
		return fmt.Sprintf("nanosleep(%s, %s)", ptr(a[0]), ptr(a[1]))
	case "read", "write":
		return fmt.Sprintf("%s(%d, 0x%x, %d)", name, int32(a[0]), a[1], a[2])
	}
	return fmt.Sprintf("%s(0x%x, 0x%x, 0x%x, 0x%x, 0x%x, 0x%x)", name, a[0], a[1], a[2], a[3], a[4], a[5])
}

// futexTimeout says what a futex wait's timeout argument means. ts is the
// timespec read from the waiter's memory (nil when unreadable); monoNow and
// wallNow are the clocks now, for "in X".
func futexTimeout(op, addr uint64, ts *[2]int64, monoNow, wallNow time.Duration) string {
	if addr == 0 {
		return "none (sleeps until woken)"
	}
	val := func(now time.Duration, abs bool) string {
		if ts == nil {
			return ""
		}
		d := time.Duration(ts[0])*time.Second + time.Duration(ts[1])
		if !abs {
			return fmt.Sprintf(": %v", d)
		}
		return fmt.Sprintf(": %d.%09d s, due in %v", ts[0], ts[1], (d - now).Round(time.Millisecond))
	}
	switch procfs.FutexCmd(op) {
	case procfs.FutexWait:
		return fmt.Sprintf("relative timespec at 0x%x%s", addr, val(0, false))
	case procfs.FutexWaitBitset:
		if op&procfs.FutexClockRealtime != 0 {
			return fmt.Sprintf("absolute CLOCK_REALTIME deadline at 0x%x%s (moves with wall-clock steps)", addr, val(wallNow, true))
		}
		return fmt.Sprintf("absolute CLOCK_MONOTONIC deadline at 0x%x%s", addr, val(monoNow, true))
	}
	return fmt.Sprintf("0x%x", addr)
}
