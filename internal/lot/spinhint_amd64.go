package lot

// cpuRelax is upstream's cpu_relax(n) (parking_lot core/src/spinwait.rs):
// n x86 PAUSE instructions (spinhint_amd64.s), what Rust's
// core::hint::spin_loop() compiles to on x86-64. SpinWait runs 2, 4 and 8
// of them in its first three rounds. A PAUSE takes tens of cycles on
// current cores, where parkers.CPURelax's atomic load takes one: with the
// load, a waiting Mutex or WordLock spun for a few nanoseconds instead of
// upstream's hundred or so before it yielded, and a lock held for a few
// nanoseconds was found still taken (docs/findings.md, "The port's fast
// paths"). One call per spin round.
//
//go:noescape
func cpuRelax(n int)
