package report

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// TestStacksDetailOrder: a configuration's details come in the order the
// experiment gave (DetailOrder), "what" in the heading, the keys it does
// not name after them alphabetically; without an order, all alphabetically.
func TestStacksDetailOrder(t *testing.T) {
	c := &results.Config{Key: "futex", Kind: "thread", Detail: map[string]string{
		"what": "a futex wait", "wchan": "futex_wait", "tid": "12", "zeta": "z", "alpha": "a",
	}}
	for _, tc := range []struct {
		order []string
		want  []string
	}{
		{[]string{"what", "wchan", "tid"}, []string{"wchan", "tid", "alpha", "zeta"}},
		{nil, []string{"alpha", "tid", "wchan", "zeta"}},
	} {
		var b strings.Builder
		renderStacks(&page{w: &b}, &results.Experiment{Configs: []*results.Config{c}, DetailOrder: tc.order})
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		if lines[0] != "futex (thread): a futex wait" {
			t.Errorf("heading %q", lines[0])
		}
		var got []string
		for _, l := range lines[1:] {
			got = append(got, strings.Fields(l)[0])
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("order %v: keys %v, want %v", tc.order, got, tc.want)
		}
	}
}
