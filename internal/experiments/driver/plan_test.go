package driver

import (
	"context"
	"errors"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// startedRun records whether its Run began.
type startedRun struct{ started *bool }

func (r startedRun) Run(context.Context, Progress) (*results.Experiment, error) {
	*r.started = true
	return &results.Experiment{}, nil
}

// A Plan called with its context already done returns ctx.Err() without
// starting the run (its calibrations and probes); otherwise it runs.
func TestPreparedCancelledBeforeStart(t *testing.T) {
	var started bool
	p, err := Prepared(startedRun{&started}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p(ctx, nil); !errors.Is(err, context.Canceled) || started {
		t.Errorf("cancelled before the start: err %v, run started %v; want context.Canceled, not started", err, started)
	}
	if _, err := p(context.Background(), nil); err != nil || !started {
		t.Errorf("not cancelled: err %v, run started %v", err, started)
	}
}
