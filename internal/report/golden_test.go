package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestGolden renders the recorded v1 fixtures (internal/results/testdata)
// in every text format people read, and compares with testdata/*.golden
// (go test ./internal/report -run TestGolden -update rewrites them). The
// fixtures are fixed files, so nothing of the machine running the test
// (OS, architecture, time zone) reaches the output.
func TestGolden(t *testing.T) {
	files := fixtures(t)
	for i := range files {
		files[i].Name = filepath.Base(files[i].Name) // no path separators of this OS
	}
	for _, tc := range []struct {
		name, format string
		o            Options
	}{
		{"table", "table", Options{}},
		{"table-wide-verbose", "table", Full},
		{"markdown", "markdown", Options{}},
		{"csv", "csv", Options{}},
		{"benchstat", "benchstat", Options{}},
	} {
		var buf bytes.Buffer
		if err := RenderFiles(&buf, files, tc.format, tc.o); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// The os/arch shown is the fixtures' recorded machine, never the
		// runner's; a placeholder keeps the goldens free of any one
		// platform's name (they run under Wine and qemu too).
		got := bytes.ReplaceAll(buf.Bytes(), []byte("linux/amd64"), []byte("<recorded os/arch>"))
		checkGolden(t, tc.name+".golden", got)
	}
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/report -run TestGolden -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s changed (go test ./internal/report -run TestGolden -update, then review the diff); got:\n%s", path, got)
	}
}
