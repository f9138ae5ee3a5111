//go:build parkinject

package inject

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	d, err := parse("futex=3us, std=2.5us,lot=0")
	if err != nil || d[Futex] != 3*time.Microsecond || d[Std] != 2500*time.Nanosecond || d[Lot] != 0 {
		t.Fatalf("%v %v", d, err)
	}
	for _, bad := range []string{"futex", "nosuch=1us", "futex=-1us", "futex=2s", "futex=soon"} {
		if _, err := parse(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if d, err := parse(""); err != nil || d != [numSites]time.Duration{} {
		t.Fatalf("empty: %v %v", d, err)
	}
}

// TestWakeWaits checks the mechanism, not a timing: a delay makes Wake
// take at least that long (never less); no delay returns at once.
func TestWakeWaits(t *testing.T) {
	old := delay
	defer func() { delay = old }()
	delay = [numSites]time.Duration{Futex: 200 * time.Microsecond}
	start := time.Now()
	Wake(Futex)
	if el := time.Since(start); el < 200*time.Microsecond {
		t.Fatalf("Wake(futex) returned after %v, before its 200µs delay", el)
	}
	Wake(Std) // no delay: returns
}
