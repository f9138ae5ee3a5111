package machine

import (
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

func TestDescribe(t *testing.T) {
	m := Describe()
	if m.OS == "" || m.Arch == "" || m.LogicalCPUs < 1 || m.Slug == "" || m.GoVersion == "" {
		t.Fatalf("incomplete: %+v", m)
	}
	t.Logf("%+v", m)
}

func TestSlug(t *testing.T) {
	for _, c := range []struct {
		m    results.Machine
		want string
	}{
		{results.Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 2, CPUModel: "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", Virtualization: "kvm"}, "linux-amd64-2cpu-intel-xeon-platinum-8375c-2-90gh-kvm"},
		{results.Machine{OS: "linux", Arch: "arm64", LogicalCPUs: 4, CPUModel: "ARM Neoverse-N2", Virtualization: "microsoft+docker"}, "linux-arm64-4cpu-arm-neoverse-n2-microsoft"},
		{results.Machine{OS: "darwin", Arch: "arm64", LogicalCPUs: 3}, "darwin-arm64-3cpu"},
		{results.Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 8, CPUModel: "AMD EPYC 7763 64-Core Processor", Virtualization: "none"}, "linux-amd64-8cpu-amd-epyc-7763-64-core"},
	} {
		if got := Slug(c.m); got != c.want {
			t.Errorf("Slug(%+v) = %q, want %q", c.m, got, c.want)
		}
	}
}
