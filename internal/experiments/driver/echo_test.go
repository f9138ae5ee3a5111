package driver

import (
	"maps"
	"testing"
	"time"
)

// TestEcho: every tagged field, formatted as a result records it; the
// untagged one left out; omitempty, empty= and zero= as documented.
func TestEcho(t *testing.T) {
	type opts struct {
		Impls    []string        `opt:"impl,empty=all"`
		Waiters  []int           `opt:"waiters"`
		Wakes    []int           `opt:"wakes,zero=all"`
		Hold     time.Duration   `opt:"hold"`
		Gaps     []time.Duration `opt:"gaps,empty=0s"`
		Held     []bool          `opt:"lock-held"`
		Repeats  int             `opt:"repeats"`
		Parker   string          `opt:"lot_parker"`
		Anatomy  bool            `opt:"anatomy,omitempty"`
		Parkers  []string        `opt:"lot-parker,omitempty"`
		Internal int
	}
	got := Echo(opts{Waiters: []int{1, 16}, Wakes: []int{0, 2}, Hold: 20 * time.Microsecond, Held: []bool{true, false}, Repeats: 3, Internal: 7})
	want := map[string]string{"impl": "all", "waiters": "1,16", "wakes": "all,2", "hold": "20µs", "gaps": "0s", "lock-held": "true,false",
		"repeats": "3", "lot_parker": ""}
	if !maps.Equal(got, want) {
		t.Errorf("Echo = %v, want %v", got, want)
	}
	got = Echo(opts{Impls: []string{"futex", "lot"}, Gaps: []time.Duration{0, time.Millisecond}, Anatomy: true, Parkers: []string{"pthread"}})
	for k, v := range map[string]string{"impl": "futex,lot", "gaps": "0s,1ms", "anatomy": "true", "lot-parker": "pthread", "hold": "0s"} {
		if got[k] != v {
			t.Errorf("Echo[%s] = %q, want %q", k, got[k], v)
		}
	}
}

// TestEchoRefusesUnknown: a tag on a type Echo cannot format is a
// programming error, found at once.
func TestEchoRefusesUnknown(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a float field")
		}
	}()
	Echo(struct {
		F float64 `opt:"f"`
	}{})
}
