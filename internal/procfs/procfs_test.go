package procfs

import (
	"testing"
)

func TestParseStat(t *testing.T) {
	// comm with spaces and a ')' inside.
	s := "1234 (a b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 9 0 100 1000000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	st, err := ParseStat(s)
	if err != nil {
		t.Fatal(err)
	}
	if st.Comm != "a b) c" || st.State != 'S' || st.Processor != 1 {
		t.Fatalf("got %+v", st)
	}
	if _, err := ParseStat("garbage"); err == nil {
		t.Fatal("want error for garbage")
	}
}

func TestParseSyscall(t *testing.T) {
	sc, err := ParseSyscall("202 0xc000012345 0x80 0x1 0x0 0x0 0x0 0x7ffd0000 0x46a1b3\n")
	if err != nil {
		t.Fatal(err)
	}
	if !sc.InSyscall || sc.Nr != 202 || sc.Args[0] != 0xc000012345 || sc.Args[1] != 0x80 || sc.Args[2] != 1 || sc.SP != 0x7ffd0000 || sc.PC != 0x46a1b3 {
		t.Fatalf("got %+v", sc)
	}
	if sc, err := ParseSyscall("running\n"); err != nil || !sc.Running {
		t.Fatalf("running: %+v %v", sc, err)
	}
	if sc, err := ParseSyscall("-1 0x7ffd 0x4000\n"); err != nil || sc.InSyscall || sc.Running || sc.PC != 0x4000 {
		t.Fatalf("-1: %+v %v", sc, err)
	}
	for _, bad := range []string{"", "x", "202 0x1", "202 zz 0 0 0 0 0 0 0"} {
		if _, err := ParseSyscall(bad); err == nil {
			t.Errorf("%q: want error", bad)
		}
	}
}

func TestParseStack(t *testing.T) {
	got := ParseStack("[<0>] futex_wait_queue+0x60/0x90\n[<0>] __futex_wait+0x8e/0x100\n\n")
	if len(got) != 2 || got[0] != "futex_wait_queue+0x60/0x90" || StackFunc(got[1]) != "__futex_wait" {
		t.Fatalf("got %q", got)
	}
}

func TestSyscallNames(t *testing.T) {
	for _, c := range []struct {
		arch string
		nr   int
		want string
	}{
		{"amd64", 202, "futex"}, {"amd64", 281, "epoll_pwait"}, {"amd64", 35, "nanosleep"},
		{"amd64", 230, "clock_nanosleep"}, {"amd64", 24, "sched_yield"}, {"amd64", 0, "read"},
		{"amd64", 449, "futex_waitv"},
		{"arm64", 98, "futex"}, {"arm64", 22, "epoll_pwait"}, {"arm64", 101, "nanosleep"},
		{"arm64", 115, "clock_nanosleep"}, {"arm64", 124, "sched_yield"}, {"arm64", 63, "read"},
		{"arm64", 449, "futex_waitv"},
		{"amd64", 9999, "syscall_9999"}, {"riscv64", 98, "syscall_98"}, {"amd64", -1, "none"},
	} {
		if got := SyscallName(c.arch, c.nr); got != c.want {
			t.Errorf("SyscallName(%s, %d) = %q, want %q", c.arch, c.nr, got, c.want)
		}
	}
	if nr, ok := SyscallNumber("arm64", "futex"); !ok || nr != 98 {
		t.Errorf("SyscallNumber(arm64, futex) = %d %v", nr, ok)
	}
}

func TestFutexOp(t *testing.T) {
	for op, want := range map[uint64]string{
		0:       "FUTEX_WAIT",
		128:     "FUTEX_WAIT_PRIVATE",
		1 | 128: "FUTEX_WAKE_PRIVATE",
		9 | 128: "FUTEX_WAIT_BITSET_PRIVATE",
		9 | 256: "FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME",
		9 | 384: "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME",
		11:      "FUTEX_WAIT_REQUEUE_PI",
		99:      "FUTEX_99",
	} {
		if got := FutexOp(op); got != want {
			t.Errorf("FutexOp(%d) = %q, want %q", op, got, want)
		}
	}
	if FutexCmd(9|384) != FutexWaitBitset {
		t.Error("FutexCmd")
	}
}

func TestMaps(t *testing.T) {
	m, err := ParseMaps("00400000-00500000 r-xp 00000000 08:01 123 /usr/bin/x\n" +
		"c000000000-c004000000 rw-p 00000000 00:00 0 \n" +
		"01000000-01100000 rw-p 00000000 00:00 0 [heap]\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := FindMapping(m, 0xc000001000); !ok || got.Path != "" {
		t.Fatalf("anon: %+v %v", got, ok)
	}
	if got, ok := FindMapping(m, 0x1000010); !ok || got.Path != "[heap]" {
		t.Fatalf("heap: %+v %v", got, ok)
	}
	if _, ok := FindMapping(m, 0x10); ok {
		t.Fatal("0x10 should be unmapped")
	}
	regs := []Region{{"object", 0x100, 64}, {"word", 0x100, 8}}
	if s, ok := Match(regs, 0x104); !ok || s != "word (+4)" {
		t.Fatalf("Match = %q %v", s, ok)
	}
	if s, ok := Match(regs, 0x108); !ok || s != "object (+8)" {
		t.Fatalf("Match = %q %v", s, ok)
	}
	if _, ok := Match(regs, 0x140); ok {
		t.Fatal("0x140 is past every region")
	}
}
