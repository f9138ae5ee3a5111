package machine

import "testing"

// The result names the clock the experiments time with and its resolution.
func TestDescribeClock(t *testing.T) {
	m := Describe()
	if m.TimingClock == "" || m.ClockResolutionNs <= 0 {
		t.Errorf("timing clock %q, resolution %v ns: want both", m.TimingClock, m.ClockResolutionNs)
	}
}
