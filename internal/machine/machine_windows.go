package machine

import (
	"fmt"
	"strings"

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
}
