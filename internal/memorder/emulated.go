package memorder

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// x86Vendors are the vendor_id values of x86 CPUs in /proc/cpuinfo.
var x86Vendors = []string{"GenuineIntel", "AuthenticAMD", "HygonGenuine", "CentaurHauls"}

// ForeignX86Host says, when this process runs non-x86 code on an x86 CPU,
// why it thinks so; "" otherwise. A user-mode emulator (qemu-user) passes
// the host's /proc/cpuinfo through to the guest process, so a linux/arm64
// process that reads an x86 vendor_id there is being translated onto an
// x86 host, whose store buffer the translation of STLR then LDAR does not
// fence (docs/platforms.md, "qemu-user breaks the atomics' store->load
// order").
//
// It is the litmus's deterministic partner: the reordering is a matter of
// chance per round, and a whole run of the litmus can miss it (1 run in 14
// of 20 000 rounds saw 0 under qemu-user 7.2 on the AMD EPYC f25m17 guest,
// and in a CI run that happened the spin and generic-yield ping-pongs then
// stalled on the emulator's reordering).
func ForeignX86Host() string {
	if runtime.GOOS != "linux" {
		return ""
	}
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	return foreignX86Host(runtime.GOARCH, bufio.NewScanner(f))
}

// foreignX86Host is ForeignX86Host over goarch and cpuinfo's lines.
func foreignX86Host(goarch string, lines *bufio.Scanner) string {
	if goarch == "amd64" || goarch == "386" {
		return ""
	}
	for lines.Scan() {
		key, value, ok := strings.Cut(lines.Text(), ":")
		if !ok || strings.TrimSpace(key) != "vendor_id" {
			continue
		}
		v := strings.TrimSpace(value)
		for _, x := range x86Vendors {
			if v == x {
				return "a " + goarch + " process reads an x86 CPU (vendor_id " + v + ") in /proc/cpuinfo: a user-mode emulator on an x86 host"
			}
		}
		return ""
	}
	return ""
}
