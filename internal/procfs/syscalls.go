package procfs

import (
	"runtime"
	"strconv"
)

// The system calls a sleeping (or spinning) thread is usually found in, per
// architecture: x86-64 has its own table; arm64 uses the generic one
// (asm-generic/unistd.h). Checked against golang.org/x/sys/unix's
// zsysnum_linux_{amd64,arm64}.go.
var syscallNames = map[string]map[int]string{
	"amd64": {
		0: "read", 1: "write", 3: "close", 7: "poll", 9: "mmap", 11: "munmap",
		14: "rt_sigprocmask", 15: "rt_sigreturn", 16: "ioctl", 17: "pread64",
		23: "select", 24: "sched_yield", 28: "madvise", 34: "pause", 35: "nanosleep",
		39: "getpid", 42: "connect", 43: "accept", 44: "sendto", 45: "recvfrom",
		47: "recvmsg", 56: "clone", 60: "exit", 61: "wait4", 128: "rt_sigtimedwait",
		130: "rt_sigsuspend", 131: "sigaltstack", 186: "gettid", 202: "futex",
		204: "sched_getaffinity", 219: "restart_syscall", 228: "clock_gettime",
		230: "clock_nanosleep", 231: "exit_group", 232: "epoll_wait", 233: "epoll_ctl",
		234: "tgkill", 247: "waitid", 257: "openat", 270: "pselect6", 271: "ppoll",
		281: "epoll_pwait", 288: "accept4", 291: "epoll_create1", 293: "pipe2",
		426: "io_uring_enter", 435: "clone3", 441: "epoll_pwait2", 449: "futex_waitv",
		454: "futex_wake", 455: "futex_wait", 456: "futex_requeue",
	},
	"arm64": {
		20: "epoll_create1", 21: "epoll_ctl", 22: "epoll_pwait", 29: "ioctl",
		56: "openat", 57: "close", 59: "pipe2", 63: "read", 64: "write", 67: "pread64",
		72: "pselect6", 73: "ppoll", 93: "exit", 94: "exit_group", 95: "waitid",
		98: "futex", 101: "nanosleep", 113: "clock_gettime", 115: "clock_nanosleep",
		123: "sched_getaffinity", 124: "sched_yield", 128: "restart_syscall",
		131: "tgkill", 132: "sigaltstack", 133: "rt_sigsuspend", 135: "rt_sigprocmask",
		137: "rt_sigtimedwait", 139: "rt_sigreturn", 172: "getpid", 178: "gettid",
		202: "accept", 203: "connect", 206: "sendto", 207: "recvfrom", 212: "recvmsg",
		215: "munmap", 220: "clone", 222: "mmap", 233: "madvise", 242: "accept4",
		260: "wait4", 426: "io_uring_enter", 435: "clone3", 441: "epoll_pwait2",
		449: "futex_waitv", 454: "futex_wake", 455: "futex_wait", 456: "futex_requeue",
	},
}

// SyscallName names system call nr on arch (a GOARCH value); unknown numbers
// come back as "syscall_NR". Only amd64 and arm64 have tables.
func SyscallName(arch string, nr int) string {
	if nr < 0 {
		return "none"
	}
	if n, ok := syscallNames[arch][nr]; ok {
		return n
	}
	return "syscall_" + strconv.Itoa(nr)
}

// SyscallNumber is the inverse of SyscallName; ok is false when the name is
// not in arch's table.
func SyscallNumber(arch, name string) (int, bool) {
	for nr, n := range syscallNames[arch] {
		if n == name {
			return nr, true
		}
	}
	return 0, false
}

// Arch is the architecture this binary runs on, for SyscallName.
var Arch = runtime.GOARCH

// futex(2) operations and flags, linux/futex.h.
const (
	FutexWait          = 0
	FutexWake          = 1
	FutexFD            = 2
	FutexRequeue       = 3
	FutexCmpRequeue    = 4
	FutexWakeOp        = 5
	FutexLockPI        = 6
	FutexUnlockPI      = 7
	FutexTrylockPI     = 8
	FutexWaitBitset    = 9
	FutexWakeBitset    = 10
	FutexWaitRequeuePI = 11
	FutexCmpRequeuePI  = 12
	FutexLockPI2       = 13

	FutexPrivateFlag   = 128
	FutexClockRealtime = 256
	futexCmdBits       = 0x7f
)

var futexCmds = map[uint64]string{
	FutexWait: "FUTEX_WAIT", FutexWake: "FUTEX_WAKE", FutexFD: "FUTEX_FD",
	FutexRequeue: "FUTEX_REQUEUE", FutexCmpRequeue: "FUTEX_CMP_REQUEUE",
	FutexWakeOp: "FUTEX_WAKE_OP", FutexLockPI: "FUTEX_LOCK_PI", FutexUnlockPI: "FUTEX_UNLOCK_PI",
	FutexTrylockPI: "FUTEX_TRYLOCK_PI", FutexWaitBitset: "FUTEX_WAIT_BITSET",
	FutexWakeBitset: "FUTEX_WAKE_BITSET", FutexWaitRequeuePI: "FUTEX_WAIT_REQUEUE_PI",
	FutexCmpRequeuePI: "FUTEX_CMP_REQUEUE_PI", FutexLockPI2: "FUTEX_LOCK_PI2",
}

// FutexOp names a futex(2) op argument the way strace does:
// "FUTEX_WAIT_PRIVATE", "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME".
func FutexOp(op uint64) string {
	cmd := op & futexCmdBits
	name, ok := futexCmds[cmd]
	if !ok {
		name = "FUTEX_" + strconv.FormatUint(cmd, 10)
	}
	if op&FutexPrivateFlag != 0 {
		name += "_PRIVATE"
	}
	if op&FutexClockRealtime != 0 {
		name += "|FUTEX_CLOCK_REALTIME"
	}
	if rest := op &^ (futexCmdBits | FutexPrivateFlag | FutexClockRealtime); rest != 0 {
		name += "|0x" + strconv.FormatUint(rest, 16)
	}
	return name
}

// FutexCmd returns the operation without its flags.
func FutexCmd(op uint64) uint64 { return op & futexCmdBits }

// IsFutex reports whether nr on arch is futex(2).
func IsFutex(arch string, nr int) bool { return SyscallName(arch, nr) == "futex" }
