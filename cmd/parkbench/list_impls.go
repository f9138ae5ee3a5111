package main

import (
	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/parkers"
)

// defaultParkerName is the concrete backend `default` resolves to here.
func defaultParkerName() string { return parkers.DefaultName() }

// extraImpls are the implementations that are not parker backends: the
// parking lot itself and the C reference.
func extraImpls() []implInfo {
	why := ""
	if err := cref.Available(); err != nil {
		why = err.Error()
	}
	return []implInfo{
		{"lot", "lot", "", "parking_lot_core port: Park (validate checks the flag) / UnparkOne on the hash table of buckets, over the default parker (--lot-parker picks another)"},
		{"c-futex", "c-reference", why, "C threads, raw FUTEX_WAIT/WAKE_PRIVATE ping-pong, no Go runtime in the loop: the floor for sleeping parkers"},
		{"c-spin", "c-reference", why, "C threads busy-waiting on a flag: the cross-core communication floor"},
	}
}
