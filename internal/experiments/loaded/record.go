package loaded

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// newConfig is a configuration's record before its rounds.
func newConfig(c cfgSpec, o Options) *results.Config {
	cfg := &results.Config{Key: c.key(), Impl: c.mech.name, Kind: c.mech.kind, Placement: driver.Unpinned,
		Params: map[string]string{
			"workers": strconv.Itoa(c.workers * o.MessageThreads), "workers_per_message_thread": strconv.Itoa(c.workers),
			"message_threads": strconv.Itoa(o.MessageThreads), "multiple": strconv.Itoa(c.multiple),
			"sweep": strings.Join(c.sweeps, ","), "arrival": o.Arrival,
		}}
	// load and oversub are set only on the configurations of their sweep:
	// plot draws each sweep against its own parameter.
	if c.closed {
		cfg.Params["mode"] = "closed"
	} else {
		cfg.Params["mode"] = "open"
		cfg.Params["load_pct"] = strconv.Itoa(c.load)
		if slices.Contains(c.sweeps, "rate") {
			cfg.Params["load"] = strconv.Itoa(c.load)
		}
	}
	if slices.Contains(c.sweeps, "oversubscribe") {
		cfg.Params["oversub"] = strconv.Itoa(c.multiple)
	}
	return cfg
}

func sleepNote(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(" after a %v nanosleep (schbench -s)", d)
}

func arrivalNote(a string) string {
	if a == Burst {
		return "burst, schbench -R's: each second's requests posted at once at the top of the second"
	}
	return "uniform, wrk2's: evenly spaced intended start times; a late message thread sends the overdue requests at once and their latency counts from their intended start"
}

// asMap is the options' echo (their opt tags) with the mechanisms planned
// and the workers per message thread (0: the CPUs' share).
func (o Options) asMap(mechs []mechanism) map[string]string {
	var names []string
	for _, m := range mechs {
		names = append(names, m.name)
	}
	m := driver.Echo(o)
	m["impl"] = strings.Join(names, ",")
	m["workers"] = strconv.Itoa(o.workers())
	return m
}
