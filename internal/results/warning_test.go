package results

import (
	"testing"
)

// A file written before warnings had codes reads with the warnings the
// renderers group by code coded, their figures parsed, the rest prose.
func TestCodeProse(t *testing.T) {
	f := &File{Format: Format, Version: Version, Machine: Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 2}, Experiments: []*Experiment{{Name: "latency", Configs: []*Config{
		{Key: "futex/cross-core", Summary: map[string]float64{}, Warnings: []string{
			"other processes used 71% of the CPU time while this ran: the figures are noisy (compare them within this run; rerun on a quiet machine to record or quote them)",
			"bimodal: 87% of samples around 20.38 µs, 13% of samples around 267 ns; the median of rounds is one regime's, not a typical wake; 13% of waits never slept (their samples are the short ones)",
			"round 2: 1 GC cycle(s) ran inside the measured window",
		}},
		{Key: "pthread/unpinned", Summary: map[string]float64{}, Warnings: []string{
			"bimodal: 60% of samples around 0.88 µs, 40% around 2.3 µs; unpinned, but the threads kept to one placement (both on one CPU on 98% of sampled wakes): the modes are the mechanism's own",
			"bimodal: 66% of samples around 86 ns (rounds 2, 3), 34% of samples around 286 ns (round 1); the median of rounds is one regime's, not a typical wake",
		}},
	}}}}
	data, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	a, b := g.Experiments[0].Configs[0], g.Experiments[0].Configs[1]
	want := []struct {
		w      Warning
		code   string
		figure float64
	}{{a.Coded[0], WarnForeignCPU, 0.71}, {a.Coded[1], WarnBimodalNoSleep, 0.13}, {b.Coded[0], WarnBimodalMechanism, 0}, {b.Coded[1], WarnBimodalRounds, 0}}
	if len(a.Coded) != 2 || len(b.Coded) != 2 {
		t.Fatalf("coded %+v and %+v, want 2 each", a.Coded, b.Coded)
	}
	for _, w := range want {
		if w.w.Code != w.code || w.w.Figure != w.figure || len(w.w.Configs) != 1 || w.w.Text == "" {
			t.Errorf("%+v: want code %q, figure %v, one configuration, its text", w.w, w.code, w.figure)
		}
	}
	if len(a.Warnings) != 1 || a.Warnings[0] != "round 2: 1 GC cycle(s) ran inside the measured window" || len(b.Warnings) != 0 {
		t.Errorf("prose left: %q, %q; want the GC warning alone", a.Warnings, b.Warnings)
	}
	// Read again, nothing is coded twice.
	data, _ = Encode(g)
	h, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h.Experiments[0].Configs[0].Coded); n != 2 {
		t.Errorf("read twice: %d coded warnings, want 2", n)
	}
}
