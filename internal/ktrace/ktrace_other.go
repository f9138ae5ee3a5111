//go:build !linux

package ktrace

// Options says what to trace (see the Linux file).
type Options struct {
	TIDs, CPUs  []int
	BytesPerCPU int
	Kinds       []Kind
	Recorder    string
	BPFBytes    int
}

// Session is never opened off Linux.
type Session struct {
	Notes    []string
	Recorder string
}

var errNotLinux = &Unavailable{Reason: "reads Linux tracepoints through perf_event_open: not available on this OS",
	Fix: "run without --anatomy, or on Linux"}

// Root is "" off Linux.
func Root() string { return "" }

// Check reports that tracing needs Linux.
func Check() error { return errNotLinux }

// Open reports that tracing needs Linux.
func Open(Options) (*Session, error) { return nil, errNotLinux }

func (s *Session) Enable() error           { return errNotLinux }
func (s *Session) Disable() error          { return errNotLinux }
func (s *Session) Lost() uint64            { return 0 }
func (s *Session) Full() int               { return 0 }
func (s *Session) Drain(d []Event) []Event { return d }
func (s *Session) Close() error            { return nil }
