package driver

import (
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/optionerr"
)

// OptionError is bad input naming the Options field at fault
// (optionerr.Error: the convention the gate keeps too).
type OptionError = optionerr.Error

// Bad returns an *OptionError for field.
func Bad(field, format string, a ...any) error { return optionerr.Bad(field, format, a...) }

// CheckChoice refuses v unless it is one of valid: "unknown <what> "v";
// valid: a, b".
func CheckChoice(field, what, v string, valid []string) error {
	if slices.Contains(valid, v) {
		return nil
	}
	return Bad(field, "unknown %s %q; valid: %s", what, v, strings.Join(valid, ", "))
}

// CheckChoiceOrAll is CheckChoice for a list that also takes All (every
// value): "unknown <what> "v"; valid: a, b, or all".
func CheckChoiceOrAll(field, what, v string, valid []string) error {
	if v == All || slices.Contains(valid, v) {
		return nil
	}
	return Bad(field, "unknown %s %q; valid: %s, or %s", what, v, strings.Join(valid, ", "), All)
}

// CheckCount refuses v outside [lo, hi]: "invalid <what> <v>: must be
// between lo and hi".
func CheckCount(field, what string, v, lo, hi int) error {
	if v < lo || v > hi {
		return Bad(field, "invalid %s %d: must be between %d and %d", what, v, lo, hi)
	}
	return nil
}

// CheckCounts refuses an empty list of counts ("give at least one <what>")
// and any count outside [lo, hi] (as CheckCount).
func CheckCounts(field, what string, vs []int, lo, hi int) error {
	if len(vs) == 0 {
		return Bad(field, "give at least one %s", what)
	}
	for _, v := range vs {
		if err := CheckCount(field, what, v, lo, hi); err != nil {
			return err
		}
	}
	return nil
}

// CheckDurations refuses an empty list of durations ("give at least one
// <what>") and any outside [lo, hi]: "invalid <what> <d>: must be between
// lo and hi".
func CheckDurations(field, what string, ds []time.Duration, lo, hi time.Duration) error {
	if len(ds) == 0 {
		return Bad(field, "give at least one %s", what)
	}
	for _, d := range ds {
		if d < lo || d > hi {
			return Bad(field, "invalid %s %v: must be between %v and %v", what, d, lo, hi)
		}
	}
	return nil
}
