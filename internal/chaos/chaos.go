// Package chaos is parkbench's fault injection. Protocol code calls
// chaos.Point at the critical points of a wake-up protocol (between marking a
// thread unparked and waking it, between validate and sleep, between a
// timeout and the relock, inside a requeue). In a normal build Point is an
// empty inlined function. Built with -tags parkchaos, it injects random
// yields and short sleeps there, widening the race windows a lost wakeup
// would hide in, and counts what it injected (see chaos_on.go).
package chaos
