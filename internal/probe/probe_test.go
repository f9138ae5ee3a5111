package probe

import (
	"runtime"
	"testing"
)

// CPUs says "unknown" where the affinity cannot be read, never "one CPU".
func TestCPUs(t *testing.T) {
	pair, n, err := CPUs()
	if got := DefaultCPUs(); got != pair {
		t.Errorf("DefaultCPUs() = %v, CPUs() = %v", got, pair)
	}
	if runtime.GOOS != "linux" {
		if err == nil || n != 0 || pair != Unknown {
			t.Errorf("off Linux: CPUs() = %v, %d, %v; want Unknown, 0 and the reason", pair, n, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("CPUs: %v", err)
	}
	switch {
	case n < 1 || pair[0] < 0 || pair[1] < 0:
		t.Errorf("CPUs() = %v, %d", pair, n)
	case n == 1 && pair[0] != pair[1]:
		t.Errorf("one CPU but a pair of two: %v", pair)
	case n > 1 && pair[0] == pair[1]:
		t.Errorf("%d CPUs but the pair is one CPU twice: %v", n, pair)
	}
}
