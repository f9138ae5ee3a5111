//go:build unix && cgo && parkchaos

package parkers

// In parkchaos builds only: defines PB_CHAOS for the C code of
// pthread_cgo.go (cgo CFLAGS apply to the whole package), which turns on its
// PB_CHAOS_POINT calls between the should_park check and pthread_cond_wait.
// This file's preamble must hold no C definitions: it has an //export.

// #cgo CFLAGS: -DPB_CHAOS
import "C"

import "github.com/parkbench/parkbench/internal/chaos"

// Where PB_CHAOS_POINT is called from; keep in step with PB_AT_* in
// pthread_cgo.go.
const (
	pbAtPark      = 0 // pb_park: should_park seen set, before cond_wait
	pbAtTimedwait = 1 // pb_timedwait: should_park seen set, before the wait
)

// pbChaosPoint is called from C with the parker's mutex held, on the
// parking thread (a cgo callback: the goroutine stays on that thread).
//
//export pbChaosPoint
func pbChaosPoint(where C.int) {
	switch where {
	case pbAtPark:
		chaos.Point("pthread.park.locked-before-wait")
	case pbAtTimedwait:
		chaos.Point("pthread.park-until.locked-before-wait")
	default:
		panic("parkers: pbChaosPoint: unknown point")
	}
}
