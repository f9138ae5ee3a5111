package compare

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/parkbench/parkbench/internal/results/resultstest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestGolden renders a comparison of two generated suites (fixed seeds, so
// the same on every OS) as text (the default page, then --wide) and
// markdown and compares with
// testdata/*.golden; -update rewrites them.
func TestGolden(t *testing.T) {
	base := suite(resultstest.Spec{Spread: 0.03, Seed: 1})
	slow := suite(resultstest.Spec{Spread: 0.03, Seed: 2, Scale: 1.5})
	r := run(t, base, slow)
	for _, format := range []string{"table", "wide", "markdown"} {
		var buf bytes.Buffer
		f, o := format, RenderOptions{}
		if format == "wide" {
			f, o = "table", RenderOptions{Wide: true}
		}
		if err := RenderWith(&buf, []*Result{r}, f, o); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "compare-"+format+".golden")
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./internal/compare -run TestGolden -update)", err)
		}
		if !bytes.Equal(want, buf.Bytes()) {
			t.Errorf("%s changed (-update, then review the diff); got:\n%s", path, buf.Bytes())
		}
	}
}
