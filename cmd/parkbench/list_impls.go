package main

import "github.com/parkbench/parkbench/internal/parkers"

// defaultParkerName is the concrete backend `default` resolves to here.
func defaultParkerName() string { return "?" }

// extraImpls are implementations that are not parker backends: the lot and
// the C reference.
func extraImpls() []implInfo { return nil }

var _ = parkers.All
