//go:build parkchaos

package chaos

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func withConfig(t *testing.T, rate float64, mix [numKinds]uint64) {
	t.Helper()
	c, err := newConfig(rate, mix, time.Microsecond, 5*time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	old := setConfig(c)
	t.Cleanup(func() { setConfig(old) })
}

func TestRateOneInjectsEveryCall(t *testing.T) {
	withConfig(t, 1, [numKinds]uint64{1, 1, 1})
	before := Injected()
	const n = 300
	for i := 0; i < n; i++ {
		Point("chaos.test.always")
	}
	if got := Injected() - before; got != n {
		t.Fatalf("rate 1: %d faults for %d calls", got, n)
	}
	if got := Counts()["chaos.test.always"]; got != n {
		t.Fatalf(`Counts()["chaos.test.always"] = %d, want %d`, got, n)
	}
	p := lookup("chaos.test.always")
	for k := range p.injected {
		if p.injected[k].Load() == 0 {
			t.Errorf("kind %s never chosen in %d faults with equal weights", kindNames[k], n)
		}
	}
	if s := Summary(); !strings.Contains(s, "chaos.test.always") {
		t.Errorf("Summary lacks the point:\n%s", s)
	}
}

func TestRateZeroInjectsNothing(t *testing.T) {
	withConfig(t, 0, defaultMix)
	before := Injected()
	for i := 0; i < 1000; i++ {
		Point("chaos.test.never")
	}
	if got := Injected() - before; got != 0 {
		t.Fatalf("rate 0 injected %d faults", got)
	}
	if Calls()["chaos.test.never"] != 1000 {
		t.Fatalf("Calls = %d, want 1000", Calls()["chaos.test.never"])
	}
}

func TestRateIsAProbability(t *testing.T) {
	withConfig(t, 0.25, [numKinds]uint64{1, 0, 0}) // gosched only: fast
	before := Injected()
	const n = 20000
	for i := 0; i < n; i++ {
		Point("chaos.test.quarter")
	}
	got := Injected() - before
	// 0.25 * 20000 = 5000, sd ≈ 61: ±1000 is 16 sd, a broken rate, not chance.
	if got < 4000 || got > 6000 {
		t.Fatalf("rate 0.25: %d faults in %d calls", got, n)
	}
}

func TestConcurrentCounts(t *testing.T) {
	withConfig(t, 1, [numKinds]uint64{1, 1, 0})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				Point("chaos.test.shared")
			}
		}()
	}
	wg.Wait()
	if got := Counts()["chaos.test.shared"]; got != 2000 {
		t.Fatalf("Counts = %d, want 2000", got)
	}
}

func TestLoadConfig(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := loadConfig(env(nil))
	if err != nil || c.rate != defaultRate || c.sleepMax != defaultSleepMax {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	c, err = loadConfig(env(map[string]string{"PARKCHAOS_RATE": "0.5", "PARKCHAOS_MIX": "1:0:3", "PARKCHAOS_SLEEP": "10us"}))
	if err != nil || c.rate != 0.5 || c.mix != [numKinds]uint64{1, 0, 3} || c.sleepMax != 10*time.Microsecond {
		t.Fatalf("parsed: %+v, %v", c, err)
	}
	for _, bad := range []map[string]string{
		{"PARKCHAOS_RATE": "2"},
		{"PARKCHAOS_RATE": "x"},
		{"PARKCHAOS_MIX": "1:2"},
		{"PARKCHAOS_MIX": "a:b:c"},
		{"PARKCHAOS_MIX": "0:0:0"},
		{"PARKCHAOS_SLEEP": "1ns"},
	} {
		if _, err := loadConfig(env(bad)); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
