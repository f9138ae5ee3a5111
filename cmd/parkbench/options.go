package main

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// flagOfField maps the Options fields of every experiment (the Field of a
// *driver.OptionError) to the flag that sets it. One table for every
// command: a field name means the same thing in every experiment.
var flagOfField = map[string]string{
	"Impls":         "impl",
	"Placements":    "placement",
	"LotParker":     "lot-parker",
	"Warmup":        "warmup",
	"Iterations":    "iterations",
	"GapWarmup":     "warmup",
	"GapIterations": "iterations",
	"Rounds":        "rounds",
	"Gaps":          "gap",
	"GOMAXPROCS":    "gomaxprocs",
	"SchedCounts":   "sched-counts",
	"Pairs":         "pairs",
	"Samples":       "samples",
	"Waiters":       "waiters",
	"Hold":          "hold",
	"Notify":        "notify",
	"LockHeld":      "lock-held",
	"Repeats":       "repeats",
	"Deadlines":     "deadlines",
	"Slacks":        "timerslack",
	"Mechanisms":    "mech",
	"SettleTimeout": "settle",
	"GoFrames":      "go-frames",
	"LotParkers":    "lot-parker",
	"Threads":       "threads",
	"WorkIn":        "work-in",
	"WorkBetween":   "work-between",
	"Locks":         "locks",
	"Duration":      "duration",
	"HoldSleep":     "hold-sleep",
	"Skew":          "lockskew",
	"RwLock":        "rwlock",
	"Readers":       "readers",
	"Writers":       "writers",
}

// flagError names the flag of an option error: "--hold: invalid hold 2s:
// must be between 0 and 1s". A field without a flag keeps the message.
func flagError(oe *driver.OptionError) error {
	if f, ok := flagOfField[oe.Field]; ok {
		return fmt.Errorf("--%s: %w", f, oe)
	}
	return oe
}
