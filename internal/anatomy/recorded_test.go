package anatomy

import (
	"testing"

	"github.com/parkbench/parkbench/internal/ktrace"
)

// testdata/c-futex-cross-core-busy.json.gz: the first 30 wakes of each side of a traced
// round of `PARKBENCH_ANATOMY_DUMP=rec.json parkbench latency --impl=c-futex
// --placement=cross-core --anatomy --iterations=2000 --rounds=1` on the
// 2-vCPU AMD EPYC f25m17 KVM guest at load ~20 (both CPUs busy: every wake
// that slept waited in the run queue), cut to the records of their window
// (irq_vectors records left out: the join does not read them).
const recorded = "testdata/c-futex-cross-core-busy.json.gz"

func loadRecorded(t *testing.T) Recording {
	t.Helper()
	r, err := ReadRecording(recorded)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The known answer: as joined when recorded, and every decomposed wake's
// components sum to its t1 - t0.
func TestRecorded(t *testing.T) {
	r := loadRecorded(t)
	tr := Index(r.Events, r.TIDs)
	var counts [nOutcomes]int
	for _, w := range r.Wakes {
		p := tr.Join(w)
		counts[p.Outcome]++
		if p.Outcome.Flagged() {
			t.Errorf("wake %+v flagged: %s", w, p.Why)
		}
		if p.Outcome.Decomposed() {
			if p.Total() != w.T1-w.T0 {
				t.Errorf("wake %+v: components %v sum to %d, not t1-t0 %d", w, p.Ns, p.Total(), w.T1-w.T0)
			}
			for i, v := range p.Ns {
				if v < 0 {
					t.Errorf("wake %+v: %s negative (%d)", w, Components[i], v)
				}
			}
		}
	}
	want := [nOutcomes]int{Busy: 59, NoSleep: 1}
	if counts != want {
		t.Fatalf("outcomes %v, want %v", counts, want)
	}
}

// The recorded stream damaged as the bad cases are: each damaged wake is
// flagged with the right outcome; no other wake changes.
func TestRecordedDamaged(t *testing.T) {
	r := loadRecorded(t)
	var target Wake
	for _, w := range r.Wakes {
		if !w.NoSleep {
			target = w
			break
		}
	}
	inWindow := func(e ktrace.Event) bool { return e.Time >= target.T0 && e.Time <= target.T1 }
	cases := []struct {
		name   string
		damage func([]ktrace.Event) []ktrace.Event
		want   Outcome
	}{
		{"switch-in dropped", func(ev []ktrace.Event) []ktrace.Event {
			return without(ev, func(e ktrace.Event) bool {
				return inWindow(e) && e.Kind == ktrace.Switch && int32(e.B) == target.Wakee
			})
		}, Missing},
		{"waking by another tid", func(ev []ktrace.Event) []ktrace.Event {
			for i := range ev {
				if inWindow(ev[i]) && ev[i].Kind == ktrace.Waking && int32(ev[i].A) == target.Wakee {
					ev[i].TID = 4242
				}
			}
			return ev
		}, WrongTID},
		{"records lost", func(ev []ktrace.Event) []ktrace.Event {
			return append(ev, ktrace.Event{Kind: ktrace.Lost, Time: target.T0 + 1, B: target.T0 + 2, A: 5})
		}, Lost},
		{"switch-in stamped before the waking", func(ev []ktrace.Event) []ktrace.Event {
			var wk int64
			for _, e := range ev {
				if inWindow(e) && e.Kind == ktrace.Waking && int32(e.A) == target.Wakee {
					wk = e.Time
					break
				}
			}
			for i := range ev {
				if inWindow(ev[i]) && ev[i].Kind == ktrace.Switch && int32(ev[i].B) == target.Wakee {
					ev[i].Time = wk - 100
					break
				}
			}
			return ev
		}, OutOfOrder},
	}
	clean := Index(r.Events, r.TIDs)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := c.damage(append([]ktrace.Event(nil), r.Events...))
			tr := Index(ev, r.TIDs)
			for _, w := range r.Wakes {
				got := tr.Join(w)
				if w == target {
					if got.Outcome != c.want || got.Total() != 0 {
						t.Fatalf("damaged wake: %v (%s) %v, want %v with no components", got.Outcome, got.Why, got.Ns, c.want)
					}
					continue
				}
				if c.want == Lost {
					continue // a loss taints every wake whose window holds it
				}
				if want := clean.Join(w); got != want {
					t.Errorf("wake %+v changed: %+v, was %+v", w, got, want)
				}
			}
		})
	}
}
