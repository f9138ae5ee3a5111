package parkers

import (
	"runtime"
	"time"
)

// wasmParkMessage is what every wasm park panics with. Upstream's wasm.rs
// says "Parking not supported on this platform": wasm without the atomics
// feature has one thread, so a park could only ever block forever; upstream
// panics instead (its README: "deadlocks will panic instead of blocking
// forever").
const wasmParkMessage = "parking_lot: parking would block forever: wasm without threads cannot park " +
	"(upstream wasm.rs: \"Parking not supported on this platform\")"

// wasmParker is parking_lot_core's wasm.rs: every method panics.
type wasmParker struct{}

func newWasm() ThreadParker { return wasmParker{} }

func (wasmParker) PreparePark()             { panic(wasmParkMessage) }
func (wasmParker) Park()                    { panic(wasmParkMessage) }
func (wasmParker) ParkUntil(time.Time) bool { panic(wasmParkMessage) }
func (wasmParker) TimedOut() bool           { panic(wasmParkMessage) }
func (wasmParker) UnparkLock() UnparkHandle { panic(wasmParkMessage) }

// The constructor exists everywhere (it only panics), so that every
// listing shows the wasm row; it runs on wasm only.
func init() {
	var why func() error
	if runtime.GOARCH != "wasm" {
		why = onlyOn(wasmOnly)
	}
	provide(NameWasm, why, newWasm, nil)
}
