package lock

import (
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// TestPIPriceClaim: synthetic figures that must pass and must fail.
func TestPIPriceClaim(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfgs []*results.Config
		want string
	}{
		{"PI near the plain lock uncontended, far below contended", []*results.Config{
			cfg("pi-futex", 1, 52, 0), cfg("std-futex", 1, 60, 0), cfg("pi-futex", 2, 3, 0), cfg("std-futex", 2, 60, 0),
			cfg("pthread-pi", 1, 5.8, 0), cfg("pthread", 1, 4.8, 0)}, results.Holds},
		{"PI at a third uncontended", []*results.Config{cfg("pi-futex", 1, 20, 0), cfg("std-futex", 1, 60, 0)}, results.DoesNotHold},
		{"one pair failing is enough", []*results.Config{
			cfg("pi-futex", 1, 52, 0), cfg("std-futex", 1, 60, 0), cfg("pthread-pi", 1, 1, 0), cfg("pthread", 1, 4.8, 0)}, results.DoesNotHold},
		{"contended only", []*results.Config{cfg("pi-futex", 2, 3, 0), cfg("std-futex", 2, 60, 0)}, results.NotEvaluated},
	} {
		if v := verdicts(Claims(tc.cfgs, 2))[ClaimPIPrice]; v != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, v, tc.want)
		}
	}
}
