package driver

import (
	"fmt"
	"time"
)

// OptionError is bad input: an option out of range, an unknown or
// unavailable implementation, a placement this machine cannot do. Field is
// the name of the Options field at fault (e.g. "Impls", "LotParker"), so a
// command can name its own flag; the message never names a flag. Commands
// turn it into exit status 2.
type OptionError struct {
	Field string
	Err   error
}

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// Bad returns an *OptionError for field.
func Bad(field, format string, a ...any) error {
	return &OptionError{Field: field, Err: fmt.Errorf(format, a...)}
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
