//go:build !(darwin && cgo)

package parkers

import "runtime"

func init() {
	why := onlyOn("macOS only: a darwin compare-and-wait through cgo")
	if runtime.GOOS == "darwin" {
		why = unavailable("needs cgo (CGO_ENABLED=1 and a C compiler): __ulock_wait and os_sync_wait_on_address are libSystem calls made through cgo")
	}
	registerAddrWait(why, why, nil, nil)
}
