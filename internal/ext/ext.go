// Package ext holds the implementations that come from outside parkbench's
// tree for this run: a plugin's (a shared library of the C ABI in
// include/parkbench.h, loaded by internal/plugin) and a Go program's
// (through the public package bench). It is the one extension point the
// experiments read: each experiment's catalogue appends, from All, the
// implementations whose kind it can run (a parker in latency, selfwake,
// timeout and wake; a mutex in lock; a mutex with a condvar in herd; the
// lot operations in latency, selfwake and wake), so nothing in an
// experiment knows where an implementation came from.
//
// Registration happens once, before any experiment plans (the command's
// pre-run, or bench.Main); the registry is then only read.
package ext

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/parkers"
)

// Locker is a mutex (sync.Locker).
type Locker interface {
	Lock()
	Unlock()
}

// Cond is a condition variable bound to a Locker (*sync.Cond is one):
// Wait is called with the lock held, releases it while waiting and holds it
// again on return; it may return spuriously.
type Cond interface {
	Wait()
	Signal()
	Broadcast()
}

// CountingCond is a Cond whose notifications say how many threads they
// woke or moved onto the mutex (-1: cannot tell).
type CountingCond interface {
	Cond
	SignalCount() int
	BroadcastCount() int
}

// Lot is parking-lot-style park/unpark on an address (parking_lot_core's
// park, unpark_one, unpark_all, unpark_requeue): Park sleeps while *addr ==
// expected, read under the key's queue lock; deadline zero means none.
type Lot interface {
	// Park returns 1 when unparked, 0 when *addr != expected (invalid),
	// -1 when the deadline passed.
	Park(addr *uint32, expected uint32, deadline time.Time) int
	UnparkOne(addr *uint32) int
	UnparkAll(addr *uint32) int
	// Requeue wakes one thread parked on from and moves the others onto
	// to; it returns the number woken plus moved. HasRequeue says whether
	// the implementation has it.
	Requeue(from, to *uint32) int
	HasRequeue() bool
}

// Impl is one implementation from outside the tree. Exactly the kinds it
// has are set; the others are nil.
type Impl struct {
	// Name is what --impl takes; Summary one line for list.
	Name, Summary string
	// Sleeps: a wait blocks in the kernel (false: it spins).
	Sleeps bool
	// Origin says where it came from, for list and errors ("plugin
	// ./libmine.so", "Go program").
	Origin string
	// Library and Version are recorded in every result that measured it
	// (a plugin's table name and version string).
	Library, Version string
	// NewThread is a parking_lot ThreadParkerT-style parker; NewToken a
	// token parker (at most one of the two).
	NewThread func() parkers.ThreadParker
	NewToken  func() parkers.TokenParker
	// NewLock makes a mutex; NewCond a condvar used with one of NewLock's.
	NewLock func() Locker
	NewCond func(Locker) Cond
	// Lot is the parking-lot operations.
	Lot Lot
	// C is the implementation's pbw_foreign (internal/watch/watch.h: its
	// struct pb_impl and who it is) for the C floors (C threads calling
	// its function pointers), nil for a Go one.
	C unsafe.Pointer
	// Own says which of its own loops the implementation supplies (ABI
	// version 2, struct pb_loops): the c-NAME rows run them instead of
	// calling its function pointers.
	Own Loops
	// Check, if set, runs before the first measurement; Register sets it
	// to the parker's conformance check (parkers.CheckThread or
	// CheckToken) for an implementation with a parker. Its error refuses
	// the parker (Backend says why), not the implementation's other kinds.
	Check func() error
}

// Loops are the timed loops an implementation owns (include/parkbench.h,
// struct pb_loops): its lock loop, self-wake loop and ping-pong wait, each
// with its own lock or parker inlined.
type Loops struct{ Lock, Selfwake, PingPong bool }

// The "loop" parameter of a plugin's C row in a result: which loop ran.
const (
	LoopParam        = "loop"
	LoopOwn          = "own"               // the library's own loop (c-NAME of a version-2 library)
	LoopFuncPointers = "function pointers" // the harness's C loop calling its functions
)

// Any reports whether it owns any loop.
func (l Loops) Any() bool { return l.Lock || l.Selfwake || l.PingPong }

// Kinds names the kinds i has, for list.
func (i Impl) Kinds() string {
	var k []string
	if i.NewThread != nil {
		k = append(k, "thread parker")
	}
	if i.NewToken != nil {
		k = append(k, "token parker")
	}
	if i.NewLock != nil {
		k = append(k, "mutex")
	}
	if i.NewCond != nil {
		k = append(k, "condvar")
	}
	if i.Lot != nil {
		k = append(k, "lot")
	}
	return strings.Join(k, ", ")
}

// Backend is i's parker as a parkers.Backend (ok false when it has none):
// how the parker experiments take it. A parker that failed its conformance
// check (Checked) is unavailable, with the check's error as the reason.
func (i Impl) Backend() (parkers.Backend, bool) {
	b := parkers.Backend{Name: i.Name, Summary: i.Summary, Sleeps: i.Sleeps}
	if i.Check != nil {
		name := i.Name
		b.Unavailable = func() error { return refusal(name) }
	}
	switch {
	case i.NewThread != nil:
		b.Kind, b.NewThread = parkers.KindThread, i.NewThread
	case i.NewToken != nil:
		b.Kind, b.NewToken, b.NewThread = parkers.KindToken, i.NewToken, parkers.ThreadFromToken(i.NewToken)
	default:
		return b, false
	}
	return b, true
}

// CName is the name of the C-floor row of the implementation named name:
// the same loop in C threads calling its function pointers.
func CName(name string) string { return "c-" + name }

// CFuncName is the name of the function pointers' C row of an
// implementation that owns its loops (Impl.Own): CName is then its own
// loops' row, and this one the same C threads calling its functions (what
// the call boundary costs). No implementation's name begins with "c-", so
// neither can clash with one.
func CFuncName(name string) string { return "c-" + name + ".fp" }

// namePattern is the header's rule for a name: lower case, digits, '-',
// '_' and '.', at most 32 bytes.
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,31}$`)

// CheckName returns why name cannot name an implementation ("" when it
// can).
func CheckName(name string) string {
	if !namePattern.MatchString(name) {
		return "a name is 1 to 32 bytes of lower case letters, digits, '-', '_' and '.', starting with a letter or digit"
	}
	if name == "all" {
		return `"all" names every implementation`
	}
	if strings.HasPrefix(name, "c-") {
		return `"c-" begins the name of each implementation's C-floor row (c-NAME)`
	}
	return ""
}

var (
	mu   sync.Mutex
	impl []Impl
)

// Register adds impls to the run: the one place an implementation from
// outside the tree is checked. builtin reports whether a name is listed by
// any experiment. A bad name (CheckName), a name given twice (in impls or
// already registered) or a built-in's, a summary that is not one line of
// at most 80 bytes, an implementation of no kind, or a condvar without a
// mutex is refused by name, and nothing is registered. An implementation
// with a parker gets its conformance check as Check.
func Register(builtin func(string) bool, impls ...Impl) error {
	seen := map[string]string{}
	for _, x := range All() {
		seen[x.Name] = x.Origin
	}
	out := make([]Impl, 0, len(impls))
	for _, x := range impls {
		if why := CheckName(x.Name); why != "" {
			return fmt.Errorf("%s: implementation name %q: %s", x.Origin, x.Name, why)
		}
		if o, dup := seen[x.Name]; dup {
			if o == x.Origin {
				return fmt.Errorf("%s: implementation %q is listed twice: each name is one implementation", x.Origin, x.Name)
			}
			return fmt.Errorf("%s: implementation %q is also in %s: each name is one implementation", x.Origin, x.Name, o)
		}
		if builtin != nil && builtin(x.Name) {
			return fmt.Errorf("%s: implementation %q has a built-in implementation's name", x.Origin, x.Name)
		}
		if len(x.Summary) > 80 || strings.ContainsAny(x.Summary, "\n\r") {
			return fmt.Errorf("%s: implementation %q: the summary is one line of at most 80 bytes", x.Origin, x.Name)
		}
		if x.Kinds() == "" {
			return fmt.Errorf("%s: implementation %q has no parker, mutex, condvar or lot operations", x.Origin, x.Name)
		}
		if x.NewCond != nil && x.NewLock == nil {
			return fmt.Errorf("%s: implementation %q has a condvar but no mutex to use it with", x.Origin, x.Name)
		}
		if x.Check == nil {
			x.Check = conformance(x)
		}
		seen[x.Name] = x.Origin
		out = append(out, x)
	}
	mu.Lock()
	defer mu.Unlock()
	impl = append(impl, out...)
	return nil
}

// conformance is x's parker's conformance check (nil without a parker).
func conformance(x Impl) func() error {
	switch {
	case x.NewThread != nil:
		return func() error { return parkers.CheckThread(x.NewThread, parkers.ConformCycles, parkers.ConformLimit) }
	case x.NewToken != nil:
		return func() error { return parkers.CheckToken(x.NewToken, parkers.ConformCycles, parkers.ConformLimit) }
	}
	return nil
}

// All returns the registered implementations, in registration order.
func All() []Impl {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(impl)
}

// Lookup returns the registered implementation named name.
func Lookup(name string) (Impl, bool) {
	mu.Lock()
	defer mu.Unlock()
	for _, x := range impl {
		if x.Name == name {
			return x, true
		}
	}
	return Impl{}, false
}

// Reset forgets every registration (tests).
func Reset() {
	mu.Lock()
	defer mu.Unlock()
	impl = nil
	checked = map[string]error{}
}

var checked = map[string]error{}

// refusal is the remembered error of the named implementation's check
// (nil before it ran, or when it passed).
func refusal(name string) error {
	mu.Lock()
	defer mu.Unlock()
	if err := checked[name]; err != nil {
		return fmt.Errorf("its parker failed the conformance check: %w", err)
	}
	return nil
}

// Checked runs i.Check once per run and returns its (remembered) result.
func Checked(i Impl) error {
	if i.Check == nil {
		return nil
	}
	mu.Lock()
	err, done := checked[i.Name]
	mu.Unlock()
	if done {
		return err
	}
	err = i.Check()
	mu.Lock()
	checked[i.Name] = err
	mu.Unlock()
	return err
}

// Params are the Config.Params an experiment records for a configuration of
// the implementation named name: its origin and library version (nil for a
// built-in).
func Params(name string) map[string]string {
	x, ok := Lookup(name)
	if !ok {
		return nil
	}
	p := map[string]string{"origin": x.Origin}
	if x.Library != "" {
		p["library"] = x.Library
	}
	if x.Version != "" {
		p["library_version"] = x.Version
	}
	return p
}

// LotToken is a token parker made of lot operations, so that an
// implementation with only the lot runs where a parker does: a word of its
// own, 1 when a token is left. Unpark stores 1 and then unparks one thread
// parked on the word; Park parks while the word is 0 (the lot reads it
// under the key's queue lock, so the store-then-unpark cannot fall between
// its read and its sleep) and takes the token by storing 0. Tokens do not
// accumulate: the word is 0 or 1.
func LotToken(l Lot) parkers.TokenParker { return &lotToken{l: l} }

type lotToken struct {
	l    Lot
	word atomic.Uint32
}

func (t *lotToken) Park() {
	for t.word.Swap(0) == 0 {
		t.l.Park((*uint32)(unsafe.Pointer(&t.word)), 0, time.Time{})
	}
}

func (t *lotToken) ParkDeadline(d time.Time) bool {
	for t.word.Swap(0) == 0 {
		if t.l.Park((*uint32)(unsafe.Pointer(&t.word)), 0, d) < 0 {
			return t.word.Swap(0) == 1
		}
	}
	return true
}

func (t *lotToken) Unpark() {
	t.word.Store(1)
	t.l.UnparkOne((*uint32)(unsafe.Pointer(&t.word)))
}

// Saved is the registry as it stands, for Restore.
func Saved() []Impl { return All() }

// Restore puts back a registry Saved earlier (a command's execution
// forgets the implementations its --plugin added).
func Restore(s []Impl) {
	mu.Lock()
	defer mu.Unlock()
	impl = s
	// A check's result belongs to the implementation that ran it: one of
	// the same name registered later (another library) is checked anew.
	for name := range checked {
		if !slices.ContainsFunc(s, func(x Impl) bool { return x.Name == name }) {
			delete(checked, name)
		}
	}
}

// Parkers is every parker backend: the built-in ones (parkers.All), then
// the registered implementations' parkers. An experiment that takes any
// parker lists these.
func Parkers() []parkers.Backend {
	out := parkers.All()
	for _, x := range All() {
		if b, ok := x.Backend(); ok {
			out = append(out, b)
		}
	}
	return out
}

// Parker finds a parker backend by name, built-in or registered (as
// parkers.Lookup does for the built-in ones): an unknown name's error
// lists the valid names; one that does not run here says why.
func Parker(name string) (parkers.Backend, error) {
	if x, ok := Lookup(name); ok {
		b, has := x.Backend()
		if !has {
			return b, fmt.Errorf("%s has no parker (it has: %s)", name, x.Kinds())
		}
		if why := b.Why(); why != "" {
			return b, fmt.Errorf("parker %q is not available here: %s", name, why)
		}
		return b, nil
	}
	b, err := parkers.Lookup(name)
	if err != nil && !parkers.Known(name) {
		var names []string
		for _, p := range Parkers() {
			names = append(names, p.Name)
		}
		return b, fmt.Errorf("unknown parker %q; valid names: %s", name, strings.Join(names, ", "))
	}
	return b, err
}
