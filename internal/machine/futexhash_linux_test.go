package machine

import (
	"strconv"
	"strings"
	"testing"
)

// TestFutexHash reads the mode on this kernel: a kernel 6.16 or later
// must report the process-private table (a Go process always has threads),
// an older one the global table.
func TestFutexHash(t *testing.T) {
	mode, slots := FutexHash()
	k := Describe().Kernel
	t.Logf("kernel %s: futex hash %q, %d slots", k, mode, slots)
	major, minor := kernelVersion(k)
	switch {
	case major == 0:
		t.Skipf("cannot parse the kernel release %q", k)
	case major > 6 || major == 6 && minor >= 16:
		if mode != "private" || slots < 1 {
			t.Errorf("kernel %s: FutexHash() = %q, %d; want the private table with slots", k, mode, slots)
		}
	default:
		if mode != "global" || slots != 0 {
			t.Errorf("kernel %s: FutexHash() = %q, %d; want global, 0", k, mode, slots)
		}
	}
}

func kernelVersion(release string) (major, minor int) {
	f := strings.FieldsFunc(release, func(r rune) bool { return r < '0' || r > '9' })
	if len(f) < 2 {
		return 0, 0
	}
	major, _ = strconv.Atoi(f[0])
	minor, _ = strconv.Atoi(f[1])
	return major, minor
}
