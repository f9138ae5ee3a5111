// Package stress holds parkbench's stress suite, tests only: every parker
// backend, the parking lot and what is built on it, driven by more
// OS-locked threads than there are cores under GOMAXPROCS 1, 2 and 8,
// checking that no wakeup is lost (a watchdog names the stuck threads),
// that nothing wakes beyond its contract, mutual exclusion, FIFO order where
// upstream promises it, and that timed waits return.
//
//	go test -race ./internal/stress/                      short mode (CI)
//	go test -race -tags parkchaos ./internal/stress/      with fault injection
//	PARKBENCH_STRESS=1 go test ./internal/stress/         long mode (5 s a case)
//	go test ./internal/stress/ -stress.duration=30s       long mode, 30 s a case
//
// scripts/stress.sh runs the long mode in every build and sums the STRESS
// lines the tests log.
package stress
