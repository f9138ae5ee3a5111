package osthread

import "unsafe"

func uintptrOf[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }
