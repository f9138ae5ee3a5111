package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// TestDefaultWidth renders every fixture and every recorded result (real
// runs: the suite's long notes, herd's and lock's wide tables) in the
// default table view and asserts that no line is wider than
// textfmt.Columns; --wide may be wider.
func TestDefaultWidth(t *testing.T) {
	longtest.Skip(t)
	files := fixtures(t)
	recorded, err := filepath.Glob(filepath.Join("..", "..", "results", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range recorded {
		f, err := results.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, results.Named{Name: p, File: f})
	}
	for _, n := range files {
		for _, o := range []Options{{}, {Verbose: true}} {
			var buf bytes.Buffer
			if err := RenderFiles(&buf, []results.Named{n}, "table", o); err != nil {
				t.Fatal(err)
			}
			for i, l := range strings.Split(buf.String(), "\n") {
				if w := textfmt.Width(l); w > textfmt.Columns {
					t.Errorf("%s (verbose %v) line %d is %d columns wide:\n%s", n.Name, o.Verbose, i+1, w, l)
				}
			}
		}
	}
}
