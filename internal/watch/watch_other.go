//go:build !((linux || darwin) && cgo)

package watch

import "unsafe"

// Self is nil: no C calls foreign code in this build.
func Self() unsafe.Pointer { return nil }

func scan(int) (impl, lib, op string, hung bool) { return "", "", "", false }

func installCrashNote() {}
