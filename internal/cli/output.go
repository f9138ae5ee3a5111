package cli

import (
	"errors"
	"fmt"
	"io"
)

// stickyWriter remembers the first write error. Every command writes its
// report to stdout through one, and executeTo turns a failed write (a
// full disk, /dev/full, a closed pipe) into exit status 1 instead of a
// silent success with a truncated report.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// writeFailed says why stdout could not be written, or nil.
func (s *stickyWriter) writeFailed() error {
	if s.err == nil {
		return nil
	}
	err := s.err
	if u := errors.Unwrap(err); u != nil {
		err = u // "no space left on device", not "write /dev/stdout: ..."
	}
	return exitError{exitFailed, fmt.Errorf("writing standard output: %w", err)}
}
