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
// default page fits textfmt.Columns and a screen (Screen lines), with no
// label left dangling, and that --wide keeps every column.
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
			lines := strings.Split(strings.TrimSuffix(narrow.String(), "\n"), "\n")
			if len(lines) > Screen {
				t.Errorf("%s vs %s: the default page is %d lines, want %d at most", paths[j], paths[i], len(lines), Screen)
			}
			for n, l := range lines {
				if w := textfmt.Width(l); w > textfmt.Columns {
					t.Errorf("%s vs %s: line %d is %d columns wide:\n%s", paths[j], paths[i], n+1, w, l)
				}
				// A label ends in a colon only with its items under it.
				if strings.HasSuffix(l, ":") && (n+1 == len(lines) || !strings.HasPrefix(lines[n+1], "    ")) {
					t.Errorf("%s vs %s: line %d dangles: %q", paths[j], paths[i], n+1, l)
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
