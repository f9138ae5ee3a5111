package compare

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// TestDefaultWidth compares real result files (the recorded suite against
// the quick-run fixture: two machine classes, so the floor columns too,
// and a long list of configurations on one side only) and asserts that the
// default table fits textfmt.Columns, and that --wide keeps every column.
func TestDefaultWidth(t *testing.T) {
	recorded, err := filepath.Glob(filepath.Join("..", "..", "results", "*", "*.json"))
	if err != nil || len(recorded) == 0 {
		t.Fatalf("no recorded results: %v", err)
	}
	paths := append(recorded[:1:1], filepath.Join("..", "results", "testdata", "v1-run-quick.json"), filepath.Join("..", "results", "testdata", "v1-suite.json"))
	var files []*results.File
	for _, p := range paths {
		f, err := results.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for i := range files {
		for j := range files {
			if i == j {
				continue
			}
			r, err := Compare(results.Named{Name: paths[i], File: files[i]}, results.Named{Name: paths[j], File: files[j]}, DefaultOptions)
			if err != nil {
				continue // nothing in common
			}
			var narrow, wide bytes.Buffer
			if err := Render(&narrow, []*Result{r}, "table"); err != nil {
				t.Fatal(err)
			}
			for n, l := range strings.Split(narrow.String(), "\n") {
				if w := textfmt.Width(l); w > textfmt.Columns {
					t.Errorf("%s vs %s: line %d is %d columns wide:\n%s", paths[j], paths[i], n+1, w, l)
				}
			}
			if err := RenderWith(&wide, []*Result{r}, "table", RenderOptions{Wide: true}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(wide.String(), " why ") {
				t.Errorf("--wide lost the why column")
			}
		}
	}
}
