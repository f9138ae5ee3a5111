package stacks

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/procfs"
	"github.com/parkbench/parkbench/internal/results"
)

// sampleDump is a goroutine dump; MARKER stands for the blockIn frame.
const sampleDump = `goroutine 1 [running]:
main.main()
	/x/main.go:10 +0x1d

goroutine 7 [syscall, locked to thread]:
syscall.Syscall6(0xca, 0xc000012340, 0x80, 0x1, 0x0, 0x0, 0x0)
	/go/src/syscall/syscall_linux.go:95 +0x39
github.com/parkbench/parkbench/internal/futex.Wait(...)
	/p/futex/futex_linux.go:42
github.com/parkbench/parkbench/internal/lot.(*Mutex).lockSlow(0xc000010000, {0x0, 0x0, 0x0})
	/p/mutex.go:150 +0x1a
MARKER(0xc000100000)
	/p/stacks.go:170 +0x1a
created by github.com/parkbench/parkbench/internal/osthread.Go in goroutine 1
	/p/osthread.go:40 +0x1a

goroutine 8 [sync.Mutex.Lock, 2 minutes]:
sync.(*Mutex).Lock(...)
	/go/src/sync/mutex.go:46
`

func TestParseGoroutines(t *testing.T) {
	gs := parseGoroutines(strings.ReplaceAll(sampleDump, "MARKER", marker))
	if len(gs) != 3 {
		t.Fatalf("got %d goroutines", len(gs))
	}
	g := gs[7]
	if g.wait != "syscall, locked to thread" {
		t.Fatalf("wait %q", g.wait)
	}
	top := topFrames(g, 10)
	want := []string{"syscall.Syscall6", "futex.Wait", "lot.(*Mutex).lockSlow"}
	if strings.Join(top, "|") != strings.Join(want, "|") {
		t.Fatalf("top frames %q, want %q", top, want)
	}
	if gs[8].wait != "sync.Mutex.Lock, 2 minutes" || gs[8].frames[0] != "sync.(*Mutex).Lock" {
		t.Fatalf("goroutine 8: %+v", gs[8])
	}
	if len(topFrames(g, 1)) != 1 {
		t.Fatal("topFrames limit")
	}
	if id := currentGoid(); id <= 0 {
		t.Fatalf("currentGoid = %d", id)
	}
}

func TestFormatSyscall(t *testing.T) {
	sc := procfs.Syscall{InSyscall: true, Nr: 202, Args: [6]uint64{0xc000012340, 128, 1, 0, 0, 0}}
	if got := formatSyscall("amd64", sc); got != "futex(0xc000012340, FUTEX_WAIT_PRIVATE, 1, NULL)" {
		t.Errorf("got %q", got)
	}
	sc = procfs.Syscall{InSyscall: true, Nr: 98, Args: [6]uint64{0x10, 9 | 128, 0xffffffff, 0x20, 0, 0xffffffff}}
	if got := formatSyscall("arm64", sc); got != "futex(0x10, FUTEX_WAIT_BITSET_PRIVATE, -1, 0x20, NULL, FUTEX_BITSET_MATCH_ANY)" {
		t.Errorf("got %q", got)
	}
	if got := formatSyscall("amd64", procfs.Syscall{Running: true}); !strings.HasPrefix(got, "none") {
		t.Errorf("running: %q", got)
	}
	if got := futexTimeout(9|128|256, 0x40, &[2]int64{1000, 5}, 0, 999*time.Second); !strings.Contains(got, "CLOCK_REALTIME") || !strings.Contains(got, "1000.000000005 s, due in 1s") {
		t.Errorf("realtime: %q", got)
	}
	if got := futexTimeout(128, 0x40, &[2]int64{3, 0}, 0, 0); got != "relative timespec at 0x40: 3s" {
		t.Errorf("relative: %q", got)
	}
	if got := futexTimeout(128, 0, nil, 0, 0); !strings.HasPrefix(got, "none") {
		t.Errorf("no timeout: %q", got)
	}
}

type regionInner struct {
	seq  atomic.Uint32
	word atomic.Int32
}

type regionOuter struct {
	state atomic.Int32
	inner *regionInner
	any   any
}

func TestObjectRegions(t *testing.T) {
	o := &regionOuter{inner: &regionInner{}, any: &regionInner{}}
	regs := objectRegions("obj", o)
	cases := map[uint64]string{
		addrOf(&o.state):                  "obj.state",
		addrOf(&o.inner.word):             "(*obj.inner).word",
		addrOf(&o.any.(*regionInner).seq): "(*obj.any).seq",
	}
	for a, want := range cases {
		if got, ok := procfs.Match(regs, a); !ok || got != want {
			t.Errorf("Match(%#x) = %q, %v; want %q", a, got, ok, want)
		}
	}
	roots := rootRegions(regs)
	if len(roots) != 3 || roots[0].Label != "obj" {
		t.Errorf("roots %+v", roots)
	}
	if objectRegions("nil", (*regionOuter)(nil)) != nil {
		t.Error("nil pointer")
	}
}

func stackCfg(impl, kind string, d map[string]string) *results.Config {
	return &results.Config{Key: impl, Impl: impl, Kind: kind, Detail: d}
}

func TestStacksClaims(t *testing.T) {
	futex := map[string]string{"state": "S (sleeping)", "wchan": "futex_do_wait", "syscall": "futex(0x1, FUTEX_WAIT_PRIVATE, 1, NULL)", "futex_op": "FUTEX_WAIT_PRIVATE", "futex_addr": "0x1", "go_stack": "a\nb"}
	lotm := map[string]string{"state": "S (sleeping)", "wchan": "futex_do_wait", "syscall": "futex(0x2, FUTEX_WAIT_PRIVATE, 1, NULL)", "futex_op": "FUTEX_WAIT_PRIVATE", "futex_addr": "0x2", "go_stack": "c"}
	gor := map[string]string{"tid": "none (parked)", "goroutine_wait": "sync.Mutex.Lock"}
	cs := Claims([]*results.Config{stackCfg("futex", "thread", futex), stackCfg("lot-mutex", "lot", lotm), stackCfg("sync-mutex", "goroutine", gor)})
	if cs[0].Verdict != results.Holds || !strings.Contains(cs[0].Evidence, "futex, lot-mutex") {
		t.Errorf("same top: %+v", cs[0])
	}
	if cs[1].Verdict != results.Holds {
		t.Errorf("goroutine level: %+v", cs[1])
	}
	// Two mechanisms that nothing tells apart, and a goroutine that is in
	// a system call: both claims fail.
	twin := map[string]string{}
	for k, v := range futex {
		twin[k] = v
	}
	bad := map[string]string{"tid": "123", "goroutine_wait": "syscall"}
	cs = Claims([]*results.Config{stackCfg("futex", "thread", futex), stackCfg("twin", "thread", twin), stackCfg("chan", "goroutine", bad)})
	if cs[0].Verdict != results.DoesNotHold || !strings.Contains(cs[0].Evidence, "futex = twin") {
		t.Errorf("twins: %+v", cs[0])
	}
	if cs[1].Verdict != results.DoesNotHold {
		t.Errorf("goroutine in syscall: %+v", cs[1])
	}
	cs = Claims(nil)
	if cs[0].Verdict != results.NotEvaluated || cs[1].Verdict != results.NotEvaluated {
		t.Errorf("empty: %+v", cs)
	}
}

func TestResolveStackNames(t *testing.T) {
	c := catalog()
	// Empty means every mechanism that runs here (none off Linux: stacks
	// reads /proc), the others skipped with a warning each.
	runs := 0
	for _, im := range Impls() {
		if im.Why == "" {
			runs++
		}
	}
	sel, err := c.Resolve("Mechanisms", nil)
	switch {
	case runs == 0:
		if err == nil {
			t.Fatalf("nothing runs here, yet no error: %v", sel)
		}
	case err != nil || len(sel.Items) != runs || len(sel.Items)+len(sel.Warnings) != len(ImplNames()):
		t.Fatal(sel, err)
	}
	if _, err := c.Resolve("Mechanisms", []string{"nope"}); err == nil || !strings.Contains(err.Error(), "lot-mutex") {
		t.Fatal(err)
	}
}

func addrOf[T any](p *T) uint64 { return uint64(uintptr(unsafe.Pointer(p))) }

// TestStacksUnreadable: as non-root, /proc figures that cannot be read are
// marked not measured (a warning each, with the reason) and the claim built
// on them is not evaluated; threads whose wchan is "not readable" never form
// a shared top.
func TestStacksUnreadable(t *testing.T) {
	nr := func(impl string) *results.Config {
		return stackCfg(impl, "thread", map[string]string{
			"state":        "S (sleeping)",
			"wchan":        "not readable: permission denied",
			"syscall":      "not readable: permission denied",
			"kernel_stack": "not readable (permission denied; needs root or CAP_SYS_ADMIN)",
		})
	}
	cs := Claims([]*results.Config{nr("futex"), nr("pthread"), nr("std")})
	if cs[0].Verdict != results.NotEvaluated || !strings.Contains(cs[0].Evidence, "could not be read") {
		t.Errorf("claim from unreadable figures: %+v", cs[0])
	}
}
