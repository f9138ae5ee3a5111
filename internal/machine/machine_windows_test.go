package machine

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// Under Wine the description says so, and the slug is its own class.
func TestDescribeWine(t *testing.T) {
	m := Describe()
	w := wineVersion()
	t.Logf("kernel %q, virtualization %q, slug %s", m.Kernel, m.Virtualization, results.Slug(m))
	if w == "" {
		if strings.Contains(m.Kernel, "Wine") {
			t.Errorf("not under Wine, but the kernel says %q", m.Kernel)
		}
		return
	}
	if !strings.Contains(m.Kernel, "Wine "+w) || !strings.Contains(results.Slug(m), "wine") {
		t.Errorf("under Wine %s: kernel %q, slug %s", w, m.Kernel, results.Slug(m))
	}
}
