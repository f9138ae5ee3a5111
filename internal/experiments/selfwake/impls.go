package selfwake

import (
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/latency"
)

// ImplSyscall is selfwake's reference row: one trivial syscall (getppid)
// per "pair", the raw cost any kernel-side wake path pays at least once.
const ImplSyscall = "syscall"

// KindReference is the syscall row's Config.Kind.
const KindReference = "reference"

// catalog is selfwake's implementations: the syscall reference row, then
// latency's.
func catalog() driver.Catalog[latency.Impl] {
	c := latency.Catalog()
	c.Items = append([]latency.Impl{latency.NewImpl(ImplSyscall, KindReference,
		"one trivial syscall (getppid) per pair: the least any kernel-side wake path pays")}, c.Items...)
	return c
}

// Impls describes every implementation selfwake accepts: the syscall
// reference row, then latency's.
func Impls() []driver.ImplInfo { return catalog().Infos() }

// ImplNames returns every selfwake implementation name.
func ImplNames() []string { return catalog().Names() }
