// Package loaded is parkbench loaded: wake latency when the machine is
// busy, in schbench's method (masoncl/schbench schbench.c and README.md).
// Message threads each own workers; a message thread hands a worker a
// request and wakes it through the chosen mechanism; the worker does a
// calibrated amount of CPU work and takes the next. Requests arrive
// open-loop at a fixed rate with wrk2's intended start times (no
// coordinated omission), or as schbench -R's bursts at the top of each
// second, or closed-loop (schbench's default: a worker asks for the next
// request as soon as it finished one). After a warm-up, each configuration
// reports the wakeup latency (the message thread's clock right before the
// wake call -> the worker's right after its wait) and the request latency
// (the request's intended start -> its completion) at p50, p90, p99 and
// p99.9, and the requests per second, per mechanism, swept over the rate
// (fractions of the nominal capacity NumCPU / work) and over
// oversubscription (workers = 1x, 2x, 4x, 8x the CPUs). The collapse
// figure of each mechanism is the first load (and thread multiple) at
// which its p99 wakeup latency exceeds 10x its value at the lowest load.
//
// The handshake every mechanism shares, and why it loses no wakeup, is at
// slot in mech.go. docs/experiments.md ("loaded") has the method in full
// and where it differs from schbench.
package loaded
