package driver

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestResolveParticipants(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []string
		bad  bool
	}{
		{nil, []string{Threads}, false},
		{[]string{Goroutines, Threads}, []string{Threads, Goroutines}, false},
		{[]string{All}, []string{Threads, Goroutines}, false},
		{[]string{"fibers"}, nil, true},
		{[]string{Threads, Threads}, nil, true},
	} {
		got, err := ResolveParticipants("Participants", c.in)
		var oe *OptionError
		if c.bad != (err != nil) || (err != nil && (!errors.As(err, &oe) || oe.Field != "Participants")) {
			t.Errorf("%v: error %v, want bad=%v naming Participants", c.in, err, c.bad)
		}
		if !c.bad && !slices.Equal(got, c.want) {
			t.Errorf("%v: %v, want %v", c.in, got, c.want)
		}
	}
}

func TestCheckProcs(t *testing.T) {
	for _, c := range []struct {
		in  []int
		bad bool
	}{{nil, false}, {[]int{1, 2, 256}, false}, {[]int{0}, true}, {[]int{257}, true}, {[]int{2, 2}, true}} {
		if err := CheckProcs("GOMAXPROCS", c.in); (err != nil) != c.bad {
			t.Errorf("%v: %v, want bad=%v", c.in, err, c.bad)
		}
	}
}

// WithProcs puts GOMAXPROCS back, also when fn fails.
func TestWithProcsRestores(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	got, err := WithProcs(1, func() error {
		if runtime.GOMAXPROCS(0) != 1 {
			t.Errorf("inside: GOMAXPROCS %d, want 1", runtime.GOMAXPROCS(0))
		}
		return errors.New("boom")
	})
	if got != 1 || err == nil || runtime.GOMAXPROCS(0) != before {
		t.Errorf("WithProcs: ran under %d, err %v, after %d; want 1, the error, %d", got, err, runtime.GOMAXPROCS(0), before)
	}
}

func TestForParticipants(t *testing.T) {
	c := Catalog[string]{Items: []string{"chan", "futex"}, Info: func(s string) ImplInfo { return ImplInfo{Name: s} }}
	only := func(s string) string {
		if s == "futex" {
			return "parks a thread"
		}
		return ""
	}
	if _, err := ForParticipants(c, Threads, only).Resolve("Impls", []string{"futex"}); err != nil {
		t.Errorf("threads: futex refused: %v", err)
	}
	if _, err := ForParticipants(c, Goroutines, only).Resolve("Impls", []string{"futex"}); err == nil {
		t.Error("goroutines: futex named explicitly was accepted")
	}
	sel, err := ForParticipants(c, Goroutines, only).Resolve("Impls", []string{All})
	if err != nil || len(sel.Items) != 1 || len(sel.Unavailable) != 1 || len(sel.Notes) != 1 || !strings.Contains(sel.Notes[0], "with goroutines as participants: futex") {
		t.Errorf("goroutines, all: %v %v; want chan and a note for futex", sel, err)
	}
}
