package herd

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// --participants=goroutines: the Go implementations become goroutine
// copies keyed IMPL/goroutines, sync runs once, C and plugins are
// refused by name with the reason.
func TestHerdParticipants(t *testing.T) {
	o := QuickOptions()
	o.Impls = []string{"lot", "sync"}
	o.Participants = []string{driver.Threads, driver.Goroutines}
	sel, err := resolveParticipants(o)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, im := range sel.Items {
		labels = append(labels, im.label())
	}
	if got := strings.Join(labels, ","); got != "lot,sync,lot/goroutines" {
		t.Errorf("threads,goroutines: %s, want lot,sync,lot/goroutines", got)
	}
	o.Participants = []string{driver.Goroutines}
	o.Impls = []string{"pthread"}
	if catalog().Runs("pthread") {
		if _, err := resolveParticipants(o); err == nil || !strings.Contains(err.Error(), "goroutines as participants") {
			t.Errorf("pthread on goroutines: %v, want refused with the reason", err)
		}
	}
}

// A thread implementation's goroutine rows are no claim's: a lot row on
// goroutines that would fail herd-equal is left out.
func TestHerdClaimsSkipGoroutineCopies(t *testing.T) {
	c := &results.Config{Key: "lot/goroutines/unpinned/n=4", Impl: "lot", Kind: "thread",
		Params: map[string]string{"participants": driver.Goroutines, "n": "4"}, Summary: map[string]float64{}}
	for _, cl := range Claims([]*results.Config{c}, 0) {
		if cl.Verdict != results.NotEvaluated {
			t.Errorf("%s judged a goroutine copy: %s", cl.ID, cl.Verdict)
		}
	}
}
