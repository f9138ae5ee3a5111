package results

import "testing"

func TestSlug(t *testing.T) {
	xeon := Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 2, CPUModel: "Intel(R) Xeon(R) Processor", CPUVendor: "GenuineIntel", CPUFamily: 6, CPUModelNumber: 167, Virtualization: "vm+docker"}
	for _, c := range []struct {
		m    Machine
		want string
	}{
		{Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 2, CPUModel: "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", Virtualization: "kvm"}, "linux-amd64-2cpu-intel-xeon-platinum-8375c-kvm"},
		{Machine{OS: "linux", Arch: "arm64", LogicalCPUs: 4, CPUModel: "ARM Neoverse-N2", Virtualization: "microsoft+docker"}, "linux-arm64-4cpu-arm-neoverse-n2-microsoft"},
		{Machine{OS: "darwin", Arch: "arm64", LogicalCPUs: 3}, "darwin-arm64-3cpu"},
		{Machine{OS: "darwin", Arch: "arm64", LogicalCPUs: 3, CPUModel: "Apple M1 (Virtual)", Virtualization: "vm"}, "darwin-arm64-3cpu-apple-m1-virtual-vm"},
		{Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 8, CPUModel: "AMD EPYC 7763 64-Core Processor", CPUVendor: "AuthenticAMD", CPUFamily: 25, CPUModelNumber: 1, Virtualization: "none"}, "linux-amd64-8cpu-amd-epyc-7763-f25m1"},
		{Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 16, CPUModel: "AMD Ryzen 7 7840U w/ Radeon 780M Graphics"}, "linux-amd64-16cpu-amd-ryzen-7-7840u"},
		{Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 12, CPUModel: "AMD Ryzen 5 5600G with Radeon Graphics"}, "linux-amd64-12cpu-amd-ryzen-5-5600g"},
		{xeon, "linux-amd64-2cpu-intel-xeon-f6m167-vm"},
		// The recorded baseline of this machine class, before family and
		// model were recorded and with the clock in its CPU string.
		{Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 2, CPUModel: "Intel(R) Xeon(R) Processor @ 2.80GHz", Virtualization: "vm+docker"}, "linux-amd64-2cpu-intel-xeon-vm"},
	} {
		if got := Slug(c.m); got != c.want {
			t.Errorf("Slug(%+v) = %q, want %q", c.m, got, c.want)
		}
	}
}

// TestSameClass: one VM flavour is one class whatever its CPU string's
// decoration; a file without family and model matches by name; another
// vCPU count, CPU or hypervisor is another class.
func TestSameClass(t *testing.T) {
	now := Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 2, CPUModel: "Intel(R) Xeon(R) Processor", CPUVendor: "GenuineIntel", CPUFamily: 6, CPUModelNumber: 167, Virtualization: "vm+docker"}
	old := Machine{OS: "linux", Arch: "amd64", LogicalCPUs: 2, CPUModel: "Intel(R) Xeon(R) Processor @ 2.80GHz", Virtualization: "vm+docker", Slug: "linux-amd64-2cpu-intel-xeon-2-80ghz-vm"}
	if same, why := SameClass(old, now); !same {
		t.Errorf("the recorded baseline and this machine: %s", why)
	}
	decorated := now
	decorated.CPUModel = "Intel(R) Xeon(R) CPU @ 2.80GHz"
	decorated.Virtualization = "vm"
	if same, why := SameClass(decorated, now); !same {
		t.Errorf("decoration split one class: %s", why)
	}
	for _, d := range []func(m *Machine){
		func(m *Machine) { m.LogicalCPUs = 4 },
		func(m *Machine) { m.CPUModelNumber = 106 },
		func(m *Machine) { m.Virtualization = "none" },
		func(m *Machine) { m.CPUModel, m.CPUVendor = "AMD EPYC 7763 64-Core Processor", "AuthenticAMD" },
		func(m *Machine) { m.Arch = "arm64" },
	} {
		other := now
		d(&other)
		if same, why := SameClass(now, other); same {
			t.Errorf("%+v and %+v: one class (%s)", now, other, why)
		}
	}
}
