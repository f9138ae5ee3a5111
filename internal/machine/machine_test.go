package machine

import (
	"testing"
)

func TestDescribe(t *testing.T) {
	m := Describe()
	if m.OS == "" || m.Arch == "" || m.LogicalCPUs < 1 || m.Slug == "" || m.GoVersion == "" {
		t.Fatalf("incomplete: %+v", m)
	}
	t.Logf("%+v", m)
}
