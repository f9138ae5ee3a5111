package parkers

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/futex"
)

// futexAddrWait is the Linux futex as an addrWaitAPI: the darwin parker's
// logic on a real kernel compare-and-wait.
type futexAddrWait struct{}

func (futexAddrWait) wait(addr *atomic.Int32, expect int32, timeout time.Duration) {
	var ts *unix.Timespec
	if timeout > 0 {
		t := unix.NsecToTimespec(int64(timeout))
		ts = &t
	}
	futex.Wait(addr, expect, ts)
}

func (futexAddrWait) wake(addr *atomic.Int32) { futex.Wake(addr, 1) }

var futexAddrWaitPoints = newAddrWaitPoints("futex-addrwait")

func init() {
	extraThreadBackends = append(extraThreadBackends, Backend{
		Name: "futex-addrwait", Sleeps: true,
		NewThread: func() ThreadParker { return newAddrWaitParker(futexAddrWait{}, futexAddrWaitPoints, 0) },
	})
}
