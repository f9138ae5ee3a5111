package parkers

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// condToken is a correct token parker on a mutex and a condvar; every
// tokenless-th Park (when tokenless > 0) returns without a token, which
// the contract forbids.
type condToken struct {
	mu        sync.Mutex
	c         *sync.Cond
	token     bool
	calls     *atomic.Int64
	tokenless int64
}

func newCondToken(calls *atomic.Int64, tokenless int64) *condToken {
	t := &condToken{calls: calls, tokenless: tokenless}
	t.c = sync.NewCond(&t.mu)
	return t
}

func (t *condToken) Park() {
	if t.tokenless > 0 && t.calls.Add(1)%t.tokenless == 0 {
		return
	}
	t.mu.Lock()
	for !t.token {
		t.c.Wait()
	}
	t.token = false
	t.mu.Unlock()
}

func (t *condToken) ParkDeadline(d time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for !t.token && time.Now().Before(d) {
		t.mu.Unlock()
		time.Sleep(100 * time.Microsecond)
		t.mu.Lock()
	}
	ok := t.token
	t.token = false
	return ok
}

func (t *condToken) Unpark() {
	t.mu.Lock()
	t.token = true
	t.c.Signal()
	t.mu.Unlock()
}

func TestCheckTokenPassesACorrectParker(t *testing.T) {
	var calls atomic.Int64
	if err := CheckToken(func() TokenParker { return newCondToken(&calls, 0) }, ConformCycles, ConformLimit); err != nil {
		t.Fatalf("a correct parker: %v", err)
	}
}

// A park that returns without a token now and then (every 7th call, as
// internal/plugin/testdata/tokenless.c) must fail the check.
func TestCheckTokenRefusesTokenlessReturns(t *testing.T) {
	for _, every := range []int64{1, 7, 97} {
		var calls atomic.Int64
		err := CheckToken(func() TokenParker { return newCondToken(&calls, every) }, ConformCycles, ConformLimit)
		if err == nil || !strings.Contains(err.Error(), "without a token") {
			t.Errorf("a park that returns without a token every %d calls: %v; want a refusal saying so", every, err)
		}
	}
}
