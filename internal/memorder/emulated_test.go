package memorder

import (
	"bufio"
	"strings"
	"testing"
)

func TestForeignX86Host(t *testing.T) {
	amd := "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
	intel := "processor\t: 0\nvendor_id\t: GenuineIntel\n"
	arm := "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"
	for _, c := range []struct {
		goarch, cpuinfo string
		foreign         bool
	}{
		{"arm64", amd, true},     // qemu-user on the AMD guest, as measured
		{"arm64", intel, true},   // and on the Intel one
		{"riscv64", intel, true}, // any non-x86 process on x86
		{"amd64", amd, false},    // native
		{"386", intel, false},    // x86 code on x86: nothing translated
		{"arm64", arm, false},    // native arm64: no vendor_id
		{"arm64", "", false},     // no cpuinfo to read
	} {
		got := foreignX86Host(c.goarch, bufio.NewScanner(strings.NewReader(c.cpuinfo)))
		if (got != "") != c.foreign {
			t.Errorf("foreignX86Host(%s, %q) = %q, want foreign %v", c.goarch, c.cpuinfo, got, c.foreign)
		}
	}
}
