package machine

import (
	"fmt"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"

	"github.com/parkbench/parkbench/internal/results"
)

// describeOS reads the CPU model from the registry and the kernel version
// from RtlGetVersion (which, unlike GetVersionEx, is not subject to the
// compatibility shim). Windows has no load average; it stays zero.
func describeOS(m *results.Machine) {
	if k, err := registry.OpenKey(registry.LOCAL_MACHINE, `HARDWARE\DESCRIPTION\System\CentralProcessor\0`, registry.QUERY_VALUE); err == nil {
		if s, _, err := k.GetStringValue("ProcessorNameString"); err == nil {
			m.CPUModel = strings.TrimSpace(s)
		}
		k.Close()
	}
	v := windows.RtlGetVersion()
	m.Kernel = fmt.Sprintf("%d.%d.%d", v.MajorVersion, v.MinorVersion, v.BuildNumber)
	if w := wineVersion(); w != "" {
		// Wine is not Windows: its ntdll and wineserver implement the
		// waits. Said in the kernel string, and as the virtualization,
		// which is part of the machine's slug: a result made under Wine
		// is its own machine class, never a Windows baseline.
		m.Kernel += " (Wine " + w + ")"
		m.Virtualization = "wine-" + w
	}
}

// wineVersion is Wine's version if this process runs under Wine (its
// ntdll exports wine_get_version; Windows' does not), else "".
func wineVersion() string {
	proc := windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version")
	if proc.Find() != nil {
		return ""
	}
	r, _, _ := syscall.SyscallN(proc.Addr())
	if r == 0 {
		return "unknown"
	}
	// r points into ntdll's static data, not Go memory.
	return windows.BytePtrToString((*byte)(unsafe.Add(nil, r)))
}
