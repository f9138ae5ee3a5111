package inversion

import "testing"

// TestStealFromStat: CPU n's steal is the 8th figure of its line, in
// USER_HZ ticks; a missing CPU or a short line is not a figure.
func TestStealFromStat(t *testing.T) {
	const stat = "cpu  1165094 502 481493 1442620 4148 0 4672 87600 0 0\n" +
		"cpu0 582547 251 241747 721310 2073 0 2336 43800 0 0\n" +
		"cpu1 582547 251 239746 721310 2075 0 2336 43815 0 0\n" +
		"cpu2 1 2 3\n" +
		"intr 123\n"
	for _, c := range []struct {
		cpu  int
		want int64
		ok   bool
	}{{0, 43800 * 10e6, true}, {1, 43815 * 10e6, true}, {2, 0, false}, {3, 0, false}} {
		got, ok := stealFromStat(stat, c.cpu)
		if got != c.want || ok != c.ok {
			t.Errorf("cpu%d: %d %v, want %d %v", c.cpu, got, ok, c.want, c.ok)
		}
	}
	if _, ok := cpuSteal(0); !ok {
		t.Error("cpuSteal(0) cannot read /proc/stat")
	}
}
