//go:build !linux

package schedacct

import "errors"

// TakeSnapshot needs /proc/self/task (Linux).
func TakeSnapshot() (Snapshot, error) {
	return nil, errors.New("schedacct: per-thread context switches need /proc/self/task (Linux only)")
}

// FindSysmon cannot tell without /proc: 0.
func FindSysmon(exclude []int) int { return 0 }

// ThreadSwitches needs /proc/self/task (Linux).
func ThreadSwitches(tid int) (int64, error) {
	return 0, errors.New("schedacct: per-thread context switches need /proc/self/task (Linux only)")
}

// ThreadSwitchesSplit needs /proc/self/task (Linux).
func ThreadSwitchesSplit(tid int) (vol, invol int64, err error) {
	return 0, 0, errors.New("schedacct: per-thread context switches need /proc/self/task (Linux only)")
}
