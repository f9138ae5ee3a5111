//go:build !linux

package futexsync

// Supported reports whether this OS has the futex operations used here.
const Supported = false

const notLinux = "futexsync: futexes exist only on Linux"

// Mutex is Linux only.
type Mutex struct{}

func (m *Mutex) Lock()          { panic(notLinux) }
func (m *Mutex) TryLock() bool  { panic(notLinux) }
func (m *Mutex) LockContended() { panic(notLinux) }
func (m *Mutex) Unlock()        { panic(notLinux) }

// Condvar is Linux only.
type Condvar struct{}

func (c *Condvar) Wait(m *Mutex)  { panic(notLinux) }
func (c *Condvar) NotifyOne() int { panic(notLinux) }
func (c *Condvar) NotifyAll() int { panic(notLinux) }

// RequeueCondvar is Linux only.
type RequeueCondvar struct{}

func (c *RequeueCondvar) Wait(m *Mutex)                       { panic(notLinux) }
func (c *RequeueCondvar) NotifyAllLocked(m *Mutex) (int, int) { panic(notLinux) }
func (c *RequeueCondvar) NotifyAll(m *Mutex) (int, int)       { panic(notLinux) }
func (c *RequeueCondvar) NotifyOneLocked(m *Mutex) (int, int) { panic(notLinux) }
func (c *RequeueCondvar) NotifyOne(m *Mutex) (int, int)       { panic(notLinux) }

// Event is Linux only.
type Event struct{}

func (e *Event) Wait() { panic(notLinux) }
func (e *Event) Set()  { panic(notLinux) }

// PIMutex is Linux only.
type PIMutex struct{}

func (m *PIMutex) Lock()                          { panic(notLinux) }
func (m *PIMutex) LockTID(tid uint32)             { panic(notLinux) }
func (m *PIMutex) TryLockTID(tid uint32) bool     { panic(notLinux) }
func (m *PIMutex) Unlock()                        { panic(notLinux) }
func (m *PIMutex) UnlockTID(tid uint32)           { panic(notLinux) }
func (m *PIMutex) Owner() (tid uint32, wait bool) { panic(notLinux) }
