//go:build linux && cgo

package plugin

import (
	"os"
	"testing"
	"unsafe"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/ext"
)

// What a call into a plugin costs, the watchdog's stores included
// (docs/plugins.md, "What the watchdog costs"), on testdata/minimal.c's
// lock and parker, which do one or two atomics each:
//
//   - BenchmarkGoCalledLockUnlock: Lock+Unlock from a Go thread, two cgo
//     crossings through the trampolines (plugin.h);
//   - BenchmarkGoCalledSelfwake: Unpark+Park (the token makes Park return
//     at once), the same;
//   - BenchmarkCThreadLockLoop: one iteration of lock's C-thread loop over
//     the library's functions (cref.LockUncontendedNs: lock, unlock, the
//     watchdog's tick).
//
// -tags pbnowatch builds the watchdog's stores out (watch.h), for the
// difference; scripts/figures.sh plugin-overhead --watch takes both, by callgrind
// (instructions per op) and by time.

var minimal struct {
	lock, token ext.Impl
}

// minimalImpls loads testdata/minimal.c, built here or, under callgrind
// (which cannot follow the runtime through a fork and exec of gcc),
// beforehand: $PB_MINIMAL_SO names the library then.
func minimalImpls(b *testing.B) (lock, token ext.Impl) {
	if minimal.lock.NewLock == nil {
		so := os.Getenv("PB_MINIMAL_SO")
		if so == "" {
			src, err := os.ReadFile("testdata/minimal.c")
			if err != nil {
				b.Fatal(err)
			}
			so = buildSO(b, string(src))
		}
		libs, err := Load([]string{so})
		if err != nil {
			b.Fatal(err)
		}
		minimal.lock, minimal.token = libs[0].Impls[0], libs[0].Impls[1]
	}
	return minimal.lock, minimal.token
}

func BenchmarkGoCalledLockUnlock(b *testing.B) {
	l, _ := minimalImpls(b)
	m := l.NewLock()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Lock()
		//lint:ignore SA2001 the two calls through the library are what is measured
		m.Unlock()
	}
}

func BenchmarkGoCalledSelfwake(b *testing.B) {
	_, tk := minimalImpls(b)
	p := tk.NewToken()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Unpark()
		p.Park()
	}
}

func BenchmarkCThreadLockLoop(b *testing.B) {
	l, _ := minimalImpls(b)
	c := unsafe.Pointer(l.C)
	b.ResetTimer()
	cref.LockUncontendedNs(cref.LockPlugin, c, b.N)
}
