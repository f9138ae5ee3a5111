package chaos

import (
	"sync"
	"testing"
)

// Point is safe to call from many goroutines in every build, and without the
// parkchaos tag it injects nothing.
func TestPointConcurrent(t *testing.T) {
	before := Injected()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				Point("chaos.test.concurrent")
			}
		}()
	}
	wg.Wait()
	if !Enabled && Injected() != before {
		t.Fatalf("Injected() = %d without the parkchaos tag", Injected())
	}
	t.Logf("Enabled=%v injected=%d", Enabled, Injected()-before)
}
