// Package optionerr is the one convention for bad options, shared by the
// experiments (through driver) and the gate: an *Error names the Options
// field at fault, never a flag, and the command that owns the flag names
// it ("--hold: invalid critical section 0s: ...") and exits 2.
package optionerr

import "fmt"

// Error is bad input: an option out of range, an unknown or unavailable
// implementation, a placement this machine cannot do. Field is the name of
// the Options field at fault (e.g. "Impls", "LotParker", "Trials"), so a
// command can name its own flag; the message never names a flag. Commands
// turn it into exit status 2.
type Error struct {
	Field string
	Err   error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Bad returns an *Error for field.
func Bad(field, format string, a ...any) error {
	return &Error{Field: field, Err: fmt.Errorf(format, a...)}
}
