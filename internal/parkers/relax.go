package parkers

import "sync/atomic"

// relaxWord is what CPURelax loads. Nothing ever stores to it after init;
// the loads exist only to make each iteration a real memory access the
// compiler cannot delete or hoist.
var relaxWord atomic.Uint32

// CPURelax burns n pause-like iterations, as parking_lot's
// `for _ in 0..n { spin_loop() }` in SpinWait.
//
// Go has no PAUSE/YIELD intrinsic for user code (the runtime's procyield is
// internal and reaching it through linkname is not allowed here), so each
// iteration is one atomic load of a package variable. That keeps the loop
// from being optimised away and costs about a nanosecond, but unlike x86
// PAUSE it does not tell the core that this is a spin-wait (no hyper-thread
// sibling yield, no memory-order-violation pipeline flush avoided). Spinning
// backends therefore spin a little hotter than their Rust originals; their
// Summary says so.
func CPURelax(n int) {
	for i := 0; i < n; i++ {
		relaxWord.Load()
	}
}
