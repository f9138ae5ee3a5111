package memorder

import "unsafe"

// plain is c's word as a plain *int32, for the mutant litmus only.
func plain(c *cell) *int32 { return (*int32)(unsafe.Pointer(&c.v)) }
