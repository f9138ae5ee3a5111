package stacks

import (
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// Options configures Run.
type Options struct {
	// Mechanisms to block; empty or "all" means every one available.
	Mechanisms []string `flag:"mech" help:"mechanisms to block: a name, a comma list, or all ({ImplNames})"`
	// SettleTimeout bounds the wait for all blocked threads to be asleep.
	SettleTimeout time.Duration `flag:"settle" opt:"settle_timeout" help:"how long to wait for every blocked thread to be asleep before sampling anyway"`
	// GoFrames is how many Go frames to keep per goroutine.
	GoFrames int `flag:"go-frames" opt:"go_frames" help:"Go frames to show per goroutine (1..100)"`
}

// DefaultOptions blocks every mechanism.
func DefaultOptions() Options {
	return Options{Mechanisms: []string{"all"}, SettleTimeout: 5 * time.Second, GoFrames: 10}
}

// Limits of the stacks options.
const (
	MaxSettleTimeout = time.Minute
	MaxGoFrames      = 100
)

// Validate checks the mechanism names, the limits, and that stacks runs
// here.
func (o Options) Validate() error { return driver.Check(plan(o)) }

// stacksPlan is a validated stacks run: the mechanisms to block, in order.
type stacksPlan struct {
	o Options
	driver.Selection[mechanism]
}

func plan(o Options) (*stacksPlan, error) {
	if err := available(); err != nil {
		return nil, err
	}
	sel, err := catalog().Resolve("Mechanisms", o.Mechanisms)
	if err != nil {
		return nil, err
	}
	if o.SettleTimeout <= 0 || o.SettleTimeout > MaxSettleTimeout {
		return nil, driver.Bad("SettleTimeout", "invalid settle timeout %v: must be > 0 and at most %v", o.SettleTimeout, MaxSettleTimeout)
	}
	if err := driver.CheckCount("GoFrames", "go frames", o.GoFrames, 1, MaxGoFrames); err != nil {
		return nil, err
	}
	return &stacksPlan{o: o, Selection: sel}, nil
}
